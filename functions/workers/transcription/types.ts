import type { MediaProber } from '../../shared/aws/mediaconvert';
import type { JobRef } from '../../shared/data/job-lifecycle';

/**
 * What the Lambda tasks of `statemachines/transcription.asl.json` give the transcription worker, and what
 * its steps return to the state machine.
 */
export type { JobRef };

export interface ProbeInput extends JobRef {
  action: 'probe';
  executionArn?: string;
}

/** Parameters of Transcribe's StartTranscriptionJob (the SDK integration passes them as they are). */
export interface StartTranscriptionParameters {
  TranscriptionJobName: string;
  Media: { MediaFileUri: string };
  OutputBucketName: string;
  OutputKey: string;
  LanguageCode?: string;
  IdentifyLanguage?: boolean;
}

export interface ProbeOutput extends JobRef {
  reused: boolean;
  /** The source as probed (HeadObject): the content this transcription reads, the key of its reuse entry. */
  source?: { size: number; etag: string };
  durationSeconds?: number;
  /** Where the engine writes its JSON (Transcribe's format). */
  engineOutput?: { bucket: string; fullPath: string };
  transcribe?: StartTranscriptionParameters;
  /** Seconds between two checks of the engine's job (the Wait state of the machine). */
  pollSeconds?: number;
}

export interface FinalizeInput extends JobRef {
  action: 'finalize';
  durationSeconds: number;
  engineOutput: { bucket: string; fullPath: string };
  source: { size: number; etag: string };
}

export interface FailInput extends JobRef {
  action: 'fail';
  /** The caught error of the failed state (`ResultPath: $.error`). */
  error?: { Error?: string; Cause?: string };
}

export type WorkerInput = ProbeInput | FinalizeInput | FailInput;

/** The engine adapters and clock a step uses; the Lambda entry and the local stack give their own. */
export interface WorkerDeps {
  probe: MediaProber;
  now?: () => Date;
}
