import type { JobRef } from '../../shared/data/jobs/record';
import type {
  SourceFinalizeInput,
  SourceStepDeps,
  SourceStepInput,
  SourceStepOutput,
} from '../../shared/domain/jobs/source-step';

/**
 * What the Lambda tasks of `statemachines/transcription.asl.json` give the transcription worker, and what
 * its steps return to the state machine.
 */
export type { JobRef };

export type ProbeInput = SourceStepInput;

/** Parameters of Transcribe's StartTranscriptionJob (the SDK integration passes them as they are). */
export interface StartTranscriptionParameters {
  TranscriptionJobName: string;
  Media: { MediaFileUri: string };
  OutputBucketName: string;
  OutputKey: string;
  LanguageCode?: string;
  IdentifyLanguage?: boolean;
}

export interface ProbeOutput extends SourceStepOutput {
  /** Where the engine writes its JSON (Transcribe's format). */
  engineOutput?: { bucket: string; fullPath: string };
  transcribe?: StartTranscriptionParameters;
  /** Seconds between two checks of the engine's job (the Wait state of the machine). */
  pollSeconds?: number;
}

/** The engine's job as GetTranscriptionJob reports it (the fields the billing of compute time reads). */
export interface EngineJob {
  StartTime?: unknown;
  CompletionTime?: unknown;
}

export interface FinalizeInput extends SourceFinalizeInput {
  engineOutput: { bucket: string; fullPath: string };
  source: { size: number; etag: string };
  /** The engine's job as last checked: its start and completion times are the job's media time. */
  engineJob?: EngineJob;
}

/** The engine adapters and clock a step uses; the Lambda entry and the local stack give their own. */
export type WorkerDeps = SourceStepDeps;
