import { ArnFormat, Duration, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { STORED_OBJECT_PREFIXES } from '../../functions/shared/types/object-prefixes';
import { type DataResources, WORKER_ACCESS } from '../access';
import { grantObjects } from '../grants/object-prefixes';
import type { AppFunction } from './app-function';
import { AslStateMachine } from './asl-state-machine';
import { mediaJobWorker } from './job-worker';

/** Transcribe job names are the job's execution names (`tr_<ulid>-a<attempt>`). */
export const TRANSCRIBE_JOB_NAME_PATTERN = 'tr_*';

export interface TranscriptionJobsProps {
  data: DataResources;
}

/**
 * Transcriptions on AWS: the transcription worker (probe, finalize, fail steps) and the `transcription`
 * state machine (`statemachines/transcription.asl.json`), which calls Amazon Transcribe through the Step
 * Functions SDK integration (StartTranscriptionJob, then GetTranscriptionJob every 15 s). Transcribe reads
 * the source and writes its output with the caller's permissions, so the machine's role may read stored
 * objects and write only under `companies/<companyId>/transcriptions/`, and start and read only the
 * platform's Transcribe jobs (`tr_*`).
 */
export class TranscriptionJobs extends Construct {
  readonly stateMachine: StateMachine;
  readonly worker: AppFunction;

  constructor(scope: Construct, id: string, props: TranscriptionJobsProps) {
    super(scope, id);
    const { data } = props;
    const stack = Stack.of(this);

    this.worker = mediaJobWorker(this, {
      entry: 'functions/workers/transcription/index.ts',
      description: 'Public API v1, transcription worker (probe, finalize, fail)',
      access: WORKER_ACCESS.transcription,
      data,
    });

    const machine = new AslStateMachine(this, 'Machine', {
      name: 'transcription',
      functions: { TranscriptionWorkerFunctionArn: this.worker },
      timeout: Duration.hours(5),
    });
    this.stateMachine = machine.stateMachine;
    const role = this.stateMachine.role;
    const transcribeJobs = stack.formatArn({
      service: 'transcribe',
      resource: 'transcription-job',
      resourceName: TRANSCRIBE_JOB_NAME_PATTERN,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['transcribe:StartTranscriptionJob', 'transcribe:GetTranscriptionJob'],
        resources: [transcribeJobs],
      }),
    );
    grantObjects(
      role,
      data.bucket,
      { 's3:GetObject': STORED_OBJECT_PREFIXES, 's3:PutObject': ['transcriptions'] },
      'Transcribe reads the source (any stored object of the company) and writes its output into the ' +
        "job's folder under transcriptions/, as the caller.",
    );
    if (data.bucket.encryptionKey) data.bucket.encryptionKey.grantEncryptDecrypt(role);
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:transcribe:<AWS::Region>:<AWS::AccountId>:transcription-job/${TRANSCRIBE_JOB_NAME_PATTERN}]`,
      reason: 'Transcribe job names are the job ids chosen at run time; the prefix limits them to ours.',
    });
  }
}
