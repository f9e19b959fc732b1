import { ArnFormat, Duration, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { type DataResources, TENANT_OBJECT_PREFIX, WORKER_ACCESS } from '../access';
import { nagReference } from '../nag';
import type { AppFunction } from './app-function';
import { AslStateMachine } from './asl-state-machine';
import { mediaJobWorker } from './job-worker';

/** Transcribe job names are the job's execution names (`tr_<ulid>-a<attempt>`). */
export const TRANSCRIBE_JOB_NAME_PATTERN = 'tr_*';

/** Transcribe writes its JSON under the company's prefix, in the job's folder (`.../transcriptions/...`). */
export const TRANSCRIBE_OUTPUT_PATTERN = `${TENANT_OBJECT_PREFIX}*/transcriptions/*`;

export interface TranscriptionJobsProps {
  data: DataResources;
}

/**
 * Transcriptions on AWS: the transcription worker (probe, finalize, fail steps) and the `transcription`
 * state machine (`statemachines/transcription.asl.json`), which calls Amazon Transcribe through the Step
 * Functions SDK integration (StartTranscriptionJob, then GetTranscriptionJob every 15 s). Transcribe reads
 * the source and writes its output with the caller's permissions, so the machine's role may read tenant
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
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [data.bucket.arnForObjects(`${TENANT_OBJECT_PREFIX}*`)],
      }),
    );
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:PutObject'],
        resources: [data.bucket.arnForObjects(TRANSCRIBE_OUTPUT_PATTERN)],
      }),
    );
    if (data.bucket.encryptionKey) data.bucket.encryptionKey.grantEncryptDecrypt(role);
    const bucketArn = nagReference(role, data.bucket.bucketArn);
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:transcribe:<AWS::Region>:<AWS::AccountId>:transcription-job/${TRANSCRIBE_JOB_NAME_PATTERN}]`,
      reason: 'Transcribe job names are the job ids chosen at run time; the prefix limits them to ours.',
    });
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${bucketArn}/${TENANT_OBJECT_PREFIX}*]`,
      reason:
        'Transcribe reads the tenant source (keyed at run time under companies/<companyId>/) as the caller.',
    });
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${bucketArn}/${TRANSCRIBE_OUTPUT_PATTERN}]`,
      reason: "Transcribe writes its output as the caller into the job's folder under the company's prefix.",
    });
  }
}
