import type { headObject } from '../../shared/aws/s3-objects';
import type { JobRef } from '../../shared/data/jobs/record';
import type {
  SourceFinalizeInput,
  SourceStepDeps,
  SourceStepInput,
  SourceStepOutput,
} from '../../shared/domain/jobs/source-step';
import type { TranscodeEngine, TranscodePreset } from '../../shared/types/transcodes';

/**
 * What the Lambda tasks of `statemachines/transcode.asl.json` (and the MediaConvert progress rule) give the
 * transcode worker, and what its steps return to the state machine.
 */
export type { JobRef };

export type ProbeInput = SourceStepInput;

/** The input of the ffmpeg function (`functions/workers/transcode-audio`): one audio-only conversion. */
export interface AudioConversion {
  preset: TranscodePreset;
  source: { bucket: string; fullPath: string };
  output: { bucket: string; fullPath: string; contentType: string };
  durationSeconds: number;
  probed?: { hasVideo: boolean; engine: TranscodeEngine }; // Express: the probe left the job `probing` (0055)
}

export interface ProbeOutput extends SourceStepOutput {
  output?: { bucket: string; fullPath: string; contentType: string };
  /** The engine that converts the source: the machine's `Reused?` choice picks the task by it. */
  engine?: TranscodeEngine;
  /** MediaConvert job settings of the preset (the input of the `Transcode` task), for MediaConvert. */
  settings?: Record<string, unknown>;
  /** The input of the `TranscodeAudio` task, for ffmpeg. */
  conversion?: AudioConversion;
  /**
   * Strings only, as MediaConvert's UserMetadata requires: the job a progress report is for (MediaConvert's
   * events and the ffmpeg function's reports); the local engine reads the preset from it.
   */
  userMetadata?: Record<string, string>;
}

/**
 * The engine's timing of the finished conversion, epoch seconds: MediaConvert's `Job.Timing` (the `Transcode`
 * state's selected result) or the ffmpeg function's run (`TranscodeAudio`).
 */
export interface EngineTiming {
  SubmitTime?: unknown;
  StartTime?: unknown;
  FinishTime?: unknown;
}

export interface FinalizeInput extends SourceFinalizeInput, Pick<AudioConversion, 'probed'> {
  output: { bucket: string; fullPath: string; contentType: string };
  /** The engine's timing of the conversion: its start to finish is the job's media time. */
  engineTiming?: EngineTiming;
  written?: { size: number; etag: string }; // The output as the ffmpeg function's PUT answered (Express).
}

/** A MediaConvert job state change delivered by this machine's rule; `STATUS_UPDATE` carries the percent
 * complete, the job is found through the `userMetadata` the probe step gave MediaConvert. */
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
  head?: typeof headObject; // Reads an object's size and ETag (S3 HeadObject unless given).
}
