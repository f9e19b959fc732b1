import { Duration } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { type DataResources, WORKER_ACCESS } from '../access';
import { grantObjects } from '../grants/object-prefixes';
import type { AppFunction } from './app-function';
import { AslStateMachine } from './asl-state-machine';
import { mediaJobWorker } from './job-worker';

/** Polly's synthesis task actions: neither names a resource (no lexicon is used), so "*" is their only resource. */
export const POLLY_TASK_ACTIONS = ['polly:StartSpeechSynthesisTask', 'polly:GetSpeechSynthesisTask'];

export interface SpeechJobsProps {
  data: DataResources;
}

/**
 * Long-form speech jobs on AWS: the speech job worker (prepare, finalize, fail steps) and the `speech-job`
 * state machine (`statemachines/speech-job.asl.json`), which starts Amazon Polly's two synthesis tasks (the
 * audio, the sentence speech marks) through the Step Functions SDK integration and polls them with backoff.
 * Polly writes its outputs with the caller's permissions, so the machine's role may write only under
 * `companies/<companyId>/speech-jobs/`.
 */
export class SpeechJobs extends Construct {
  readonly stateMachine: StateMachine;
  readonly worker: AppFunction;

  constructor(scope: Construct, id: string, props: SpeechJobsProps) {
    super(scope, id);
    const { data } = props;
    this.worker = mediaJobWorker(this, {
      entry: 'functions/workers/speech-job/index.ts',
      description: 'Public API v1, speech job worker (prepare, finalize, fail)',
      access: WORKER_ACCESS.speechJob,
      data,
    });
    const machine = new AslStateMachine(this, 'Machine', {
      name: 'speech-job',
      functions: { SpeechJobWorkerFunctionArn: this.worker },
      timeout: Duration.hours(3),
    });
    this.stateMachine = machine.stateMachine;
    const role = this.stateMachine.role;
    role.addToPrincipalPolicy(new PolicyStatement({ actions: POLLY_TASK_ACTIONS, resources: ['*'] }));
    grantObjects(
      role,
      data.bucket,
      { 's3:PutObject': ['speechJobs'] },
      "Polly writes the audio and the speech marks into the job's folder under speech-jobs/, as the caller.",
    );
    if (data.bucket.encryptionKey) data.bucket.encryptionKey.grantEncryptDecrypt(role);
    // The role's "*" resource is acknowledged once by AslStateMachine (logging, X-Ray); Polly's task actions
    // share it for the same reason: they support no resource-level permissions.
  }
}
