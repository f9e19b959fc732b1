import type { JobRef } from '../../shared/data/jobs/record';

/**
 * What the Lambda tasks of `statemachines/speech-job.asl.json` give the speech job worker, and what its steps
 * return to the state machine.
 */
export type { JobRef };

export interface PrepareInput extends JobRef {
  action: 'prepare';
  executionArn?: string;
}

/** What both Polly tasks share (audio, sentence marks); the marks set their own `OutputFormat`. */
export interface SynthesisParameters {
  Engine: string;
  VoiceId: string;
  /** Polly's output format of the audio: `mp3`, `ogg_opus`, or `pcm` (wrapped into WAV by finalize). */
  OutputFormat: 'mp3' | 'ogg_opus' | 'pcm';
  SampleRate: string;
  OutputS3BucketName: string;
  /** The attempt's folder: Polly names each output `<prefix><TaskId>.<extension>`. */
  OutputS3KeyPrefix: string;
}

export interface PrepareOutput extends JobRef {
  reused: boolean;
  /** Whether the marks task runs (the job's `timings`): the machine's `Timings?` choice reads it. */
  timings?: boolean;
  synthesis?: SynthesisParameters;
  /** The text to speak (dropped from the execution's state once both tasks have started). */
  text?: string | null;
  /** Seconds of the first wait between two checks of a Polly task; each wait doubles it up to 32 s. */
  pollSeconds?: number;
  /** How long this step ran, in milliseconds (billed as `computeMs.workers` when the job is done). */
  workerMs?: number;
}

export interface FinalizeInput extends JobRef {
  action: 'finalize';
  /**
   * `OutputUri` of the audio task and of the speech-marks task, as GetSpeechSynthesisTask reports them; no
   * marks (`null`) for a job without timings.
   */
  audioUri: string;
  marksUri: string | null;
  workerMs?: number;
}
