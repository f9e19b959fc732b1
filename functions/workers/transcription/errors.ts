/**
 * Errors of the transcription worker. A step's error keeps its `name` as the Step Functions error name; the
 * fail step maps that name to the job's error code and a message safe to show the tenant (`errorFor`).
 */
export interface JobError {
  code: string;
  message: string;
}

const ENGINE_FAILED: JobError = {
  code: 'transcription_failed',
  message: 'The speech engine could not transcribe the source.',
};
const TIMEOUT: JobError = { code: 'timeout', message: 'The transcription took too long.' };

/** Step Functions error name → the job's error. */
export const ERROR_CODES = {
  SourceMissing: { code: 'source_missing', message: 'The source file no longer exists.' },
  SourceUnreadable: { code: 'source_unreadable', message: 'The source is not readable audio or video.' },
  SourceNoAudio: { code: 'source_no_audio', message: 'The source has no audio stream to transcribe.' },
  SourceTooLarge: { code: 'source_too_large', message: "The source is larger than your plan's limit." },
  SourceTooLong: { code: 'source_too_long', message: "The source is longer than your plan's limit." },
  TranscriptionEngineFailed: ENGINE_FAILED,
  OutputMissing: { code: 'transcription_failed', message: 'The speech engine produced no transcript.' },
  'States.TaskFailed': ENGINE_FAILED,
  'States.Timeout': TIMEOUT,
  'States.HeartbeatTimeout': TIMEOUT,
  Interrupted: { code: 'interrupted', message: 'The transcription was interrupted; enqueue it again.' },
} as const satisfies Record<string, JobError>;

export type StepErrorName = keyof typeof ERROR_CODES;

/** Any other error (a bug, a Lambda runtime or permission error): nothing the tenant can act on but retry. */
export const INTERNAL: JobError = {
  code: 'internal',
  message: 'The transcription failed unexpectedly; enqueue it again.',
};

/**
 * The job's error for a Step Functions error name: a known name by the table, an error of the Transcribe SDK
 * integration (`Transcribe.*`) as an engine failure, anything else (or no name) as `internal`.
 */
export const errorFor = (name: string | undefined): JobError => {
  if (name === undefined) return INTERNAL;
  if (Object.hasOwn(ERROR_CODES, name)) return ERROR_CODES[name as StepErrorName];
  return name.startsWith('Transcribe.') ? ENGINE_FAILED : INTERNAL;
};

const named = (name: string, message: string) => Object.assign(new Error(message), { name });

/** An error the fail step records with the code of `name`. */
export const stepError = (name: StepErrorName, message: string) => named(name, message);

/** The job finished or moved on meanwhile: the state machine ends quietly on this name. */
export const jobGone = (jobId: string) =>
  named('TranscriptionJobGone', `Transcription job ${jobId} is no longer this attempt's to work on`);
