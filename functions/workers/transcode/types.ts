import type { headObject } from '../../shared/aws/s3-objects';
import type { JobRef } from '../../shared/data/jobs/record';
import type {
  SourceFinalizeInput,
  SourceStepDeps,
  SourceStepInput,
  SourceStepOutput,
} from '../../shared/domain/jobs/source-step';

/**
 * What the Lambda tasks of `statemachines/transcode.asl.json` (and the MediaConvert progress rule) give the
 * transcode worker, and what its steps return to the state machine.
 */
export type { JobRef };

export type ProbeInput = SourceStepInput;

export interface ProbeOutput extends SourceStepOutput {
  output?: { bucket: string; fullPath: string; contentType: string };
  /** MediaConvert job settings of the preset (the engine input of the transcode step). */
  settings?: Record<string, unknown>;
  /** Strings only, as MediaConvert's UserMetadata requires; the local engine reads the preset from it. */
  userMetadata?: Record<string, string>;
}

/** MediaConvert's `Job.Timing` of the finished job (the `Transcode` state's selected result). */
export interface EngineTiming {
  SubmitTime?: unknown;
  StartTime?: unknown;
  FinishTime?: unknown;
}

export interface FinalizeInput extends SourceFinalizeInput {
  output: { bucket: string; fullPath: string; contentType: string };
  /** The engine's timing of the conversion: its start to finish is the job's media time. */
  engineTiming?: EngineTiming;
}

/**
 * A MediaConvert job state change (EventBridge, `MediaConvert Job State Change`), delivered by the rule of
 * this machine as `{ action: 'progress', detail }`. `STATUS_UPDATE` events carry the percent complete; the
 * job is found through the `userMetadata` the probe step gave MediaConvert.
 */
export interface ProgressInput {
  action: 'progress';
  detail?: {
    status?: string;
    userMetadata?: Record<string, string>;
    jobProgress?: { jobPercentComplete?: number };
  };
}

/** The engine adapters and clock a step uses; the Lambda entry and the local stack give their own. */
export interface WorkerDeps extends SourceStepDeps {
  /** Reads an object's size and ETag (S3 HeadObject unless given). */
  head?: typeof headObject;
}
