import { ArnFormat, Duration, Size, Stack, Validations } from 'aws-cdk-lib';
import { EventField, Rule, RuleTargetInput } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, type LayerVersion } from 'aws-cdk-lib/aws-lambda';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { STORED_OBJECT_PREFIXES } from '../../functions/shared/types/object-prefixes';
import { type DataResources, WORKER_ACCESS } from '../access';
import { grantObjects } from '../grants/object-prefixes';
import { AppFunction } from './app-function';
import { AslStateMachine } from './asl-state-machine';
import { ffmpegLayer } from './ffmpeg-layer';
import { mediaJobWorker } from './job-worker';

export interface TranscodeJobsProps {
  data: DataResources;
}

/**
 * Media transforms on AWS: the transcode worker (probe, finalize and fail steps), the role MediaConvert
 * assumes to read sources (any stored object) and write outputs under `companies/<companyId>/transcodes/`, and the `transcode` state machine
 * (`statemachines/transcode.asl.json`), whose role may create, watch and cancel MediaConvert jobs
 * (`createJob.sync`: the managed EventBridge rule) and pass exactly the MediaConvert role; and the rule that
 * sends the progress events of this machine's MediaConvert jobs to the worker. Audio-only presets run on ffmpeg
 * instead: an x86_64 function with the ffmpeg layer (`TranscodeAudio`), which reads the source, writes the
 * output under `transcodes/` and records progress on the job (docs/decisions/0039).
 */
export class TranscodeJobs extends Construct {
  readonly stateMachine: StateMachine;
  /** The Express machine of audio-only presets (`statemachines/transcode-audio.asl.json`). */
  readonly audioMachine: StateMachine;
  readonly worker: AppFunction;
  /** The ffmpeg function of the audio-only presets, and the layer that carries its binary. */
  readonly audioFunction: AppFunction;
  readonly ffmpegLayer: LayerVersion;
  readonly mediaConvertRole: Role;
  /** MediaConvert `STATUS_UPDATE` events of this machine's jobs → the worker's `progress` action. */
  readonly progressRule: Rule;

  constructor(scope: Construct, id: string, props: TranscodeJobsProps) {
    super(scope, id);
    const { data } = props;
    const stack = Stack.of(this);

    this.worker = mediaJobWorker(this, {
      entry: 'functions/workers/transcode/index.ts',
      description: 'Public API v1, transcode worker (probe, finalize, fail)',
      access: WORKER_ACCESS.transcode,
      data,
    });

    // One vCPU (1,769 MB): ffmpeg's audio encoders use one thread, and CPU is what a conversion bills; 15
    // minutes and 4 GiB of /tmp hold the largest source it takes (`FFMPEG_BOUNDS`: 2 GiB, 2 hours) and its output.
    this.ffmpegLayer = ffmpegLayer(this, 'FfmpegLayer');
    this.audioFunction = new AppFunction(this, 'AudioFunction', {
      entry: 'functions/workers/transcode-audio/index.ts',
      description: 'Public API v1, audio-only transcodes on ffmpeg',
      access: WORKER_ACCESS.transcodeAudio,
      data,
      architecture: Architecture.X86_64,
      layers: [this.ffmpegLayer],
      memorySize: 1769,
      timeout: Duration.minutes(15),
      ephemeralStorageSize: Size.gibibytes(4),
    });

    this.mediaConvertRole = new Role(this, 'MediaConvertRole', {
      assumedBy: new ServicePrincipal('mediaconvert.amazonaws.com'),
      description:
        'MediaConvert reads transcode sources (stored objects) and writes outputs under transcodes/',
    });
    grantObjects(
      this.mediaConvertRole,
      data.bucket,
      { 's3:GetObject': STORED_OBJECT_PREFIXES, 's3:PutObject': ['transcodes'] },
      'A source may be any stored object of the company; outputs go to the job folder under transcodes/.',
    );
    if (data.bucket.encryptionKey) data.bucket.encryptionKey.grantEncryptDecrypt(this.mediaConvertRole);

    const machine = new AslStateMachine(this, 'Machine', {
      name: 'transcode',
      functions: { TranscodeWorkerFunctionArn: this.worker, TranscodeAudioFunctionArn: this.audioFunction },
      substitutions: { MediaConvertRoleArn: this.mediaConvertRole.roleArn },
      timeout: Duration.minutes(150),
    });
    this.stateMachine = machine.stateMachine;
    // Audio-only presets start on an Express machine (probe, ffmpeg, finalize within 5 minutes), which hands
    // a source beyond its bounds to the Standard machine above (docs/decisions/0046).
    this.audioMachine = new AslStateMachine(this, 'AudioMachine', {
      name: 'transcode-audio',
      functions: { TranscodeWorkerFunctionArn: this.worker, TranscodeAudioFunctionArn: this.audioFunction },
      substitutions: { TranscodeStateMachineArn: this.stateMachine.stateMachineArn },
      timeout: Duration.minutes(5),
    }).stateMachine;
    this.stateMachine.grantStartExecution(this.audioMachine);
    const machineRole = this.stateMachine.role;
    const mediaConvert = (resource: string) =>
      stack.formatArn({
        service: 'mediaconvert',
        resource,
        resourceName: '*',
        arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
      });
    machineRole.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['mediaconvert:CreateJob', 'mediaconvert:GetJob', 'mediaconvert:CancelJob'],
        resources: [mediaConvert('queues'), mediaConvert('jobs'), mediaConvert('presets')],
      }),
    );
    machineRole.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['events:PutTargets', 'events:PutRule', 'events:DescribeRule'],
        resources: [
          stack.formatArn({
            service: 'events',
            resource: 'rule',
            resourceName: 'StepFunctionsGetEventsForMediaConvertJobRule',
          }),
        ],
      }),
    );
    machineRole.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [this.mediaConvertRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'mediaconvert.amazonaws.com' } },
      }),
    );
    for (const resource of ['queues', 'jobs', 'presets']) {
      Validations.of(machineRole).acknowledge({
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:mediaconvert:<AWS::Region>:<AWS::AccountId>:${resource}/*]`,
        reason:
          'createJob.sync creates a job in the account queue and then watches and, on stop, cancels it; job ids ' +
          'are chosen by MediaConvert at run time.',
      });
    }

    // Progress on AWS: MediaConvert sends a state change event about once a minute while a job runs; those of
    // this machine's jobs (the probe step puts the machine name in the job's user metadata) reach the worker,
    // which records the percent complete on the job.
    this.progressRule = new Rule(this, 'ProgressRule', {
      description: 'MediaConvert progress of transcode jobs to the transcode worker',
      eventPattern: {
        source: ['aws.mediaconvert'],
        detailType: ['MediaConvert Job State Change'],
        detail: {
          status: ['STATUS_UPDATE'],
          userMetadata: { stateMachine: [this.stateMachine.stateMachineName] },
        },
      },
    });
    this.progressRule.addTarget(
      new LambdaFunction(this.worker, {
        event: RuleTargetInput.fromObject({ action: 'progress', detail: EventField.fromPath('$.detail') }),
        retryAttempts: 2,
        maxEventAge: Duration.minutes(5),
      }),
    );
  }
}
