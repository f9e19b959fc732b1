/**
 * Errors of the transcode worker. A step's error keeps its `name` as the Step Functions error name; the fail
 * step maps that name to the job's error code and a message safe to show the tenant (`errorFor`).
 */
export interface JobError {
  code: string;
  message: string;
}

const ENGINE_FAILED: JobError = {
  code: 'transcode_failed',
  message: 'The media engine could not convert the source.',
};
const TIMEOUT: JobError = { code: 'timeout', message: 'The conversion took too long.' };

/** Step Functions error name → the job's error. */
export const ERROR_CODES = {
  SourceMissing: { code: 'source_missing', message: 'The source file no longer exists.' },
  SourceUnreadable: { code: 'source_unreadable', message: 'The source is not readable audio or video.' },
  SourceTooLarge: { code: 'source_too_large', message: "The source is larger than your plan's limit." },
  SourceTooLong: { code: 'source_too_long', message: "The source is longer than your plan's limit." },
  TranscodeEngineFailed: ENGINE_FAILED,
  OutputMissing: { code: 'transcode_failed', message: 'The media engine produced no output.' },
  'States.TaskFailed': ENGINE_FAILED,
  'States.Timeout': TIMEOUT,
  'States.HeartbeatTimeout': TIMEOUT,
  Interrupted: { code: 'interrupted', message: 'The conversion was interrupted; retry the job.' },
} as const satisfies Record<string, JobError>;

export type StepErrorName = keyof typeof ERROR_CODES;

/** Any other error (a bug, a Lambda runtime or permission error): nothing the tenant can act on but retry. */
export const INTERNAL: JobError = {
  code: 'internal',
  message: 'The conversion failed unexpectedly; retry the job.',
};

/**
 * The job's error for a Step Functions error name: a known name by the table, an error of the MediaConvert
 * service integration (`MediaConvert.*`) as an engine failure, anything else (or no name) as `internal`.
 */
export const errorFor = (name: string | undefined): JobError => {
  if (name === undefined) return INTERNAL;
  if (Object.hasOwn(ERROR_CODES, name)) return ERROR_CODES[name as StepErrorName];
  return name.startsWith('MediaConvert.') ? ENGINE_FAILED : INTERNAL;
};

const named = (name: string, message: string) => Object.assign(new Error(message), { name });

/** An error the fail step records with the code of `name`. */
export const stepError = (name: StepErrorName, message: string) => named(name, message);

/** The job was canceled or retried into a newer attempt: the state machine ends quietly on this name. */
export const jobGone = (jobId: string) =>
  named('TranscodeJobGone', `Transcode job ${jobId} was canceled or retried`);
