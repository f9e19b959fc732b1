/**
 * Errors of the speech job worker. A step's error keeps its `name` as the Step Functions error name; the fail
 * step maps that name to the job's error code and a message safe to show the tenant (`errorFor`).
 */
export interface JobError {
  code: string;
  message: string;
}

const ENGINE_FAILED: JobError = { code: 'synthesis_failed', message: 'The speech engine could not synthesize the text.' };
const TIMEOUT: JobError = { code: 'timeout', message: 'The synthesis took too long.' };

/** Step Functions error name → the job's error. */
export const ERROR_CODES = {
  InputMissing: { code: 'internal', message: 'The text of the job is no longer stored; enqueue it again.' },
  SpeechSynthesisFailed: ENGINE_FAILED,
  OutputMissing: { code: 'synthesis_failed', message: 'The speech engine produced no audio or speech marks.' },
  'States.TaskFailed': ENGINE_FAILED,
  'States.Timeout': TIMEOUT,
  'States.HeartbeatTimeout': TIMEOUT,
  Interrupted: { code: 'interrupted', message: 'The speech job was interrupted; enqueue it again.' },
} as const satisfies Record<string, JobError>;

export type StepErrorName = keyof typeof ERROR_CODES;

export const INTERNAL: JobError = {
  code: 'internal',
  message: 'The speech job failed unexpectedly; enqueue it again.',
};

/** A known name by the table, an error of the Polly SDK integration as an engine failure, else `internal`. */
export const errorFor = (name: string | undefined): JobError => {
  if (name === undefined) return INTERNAL;
  if (Object.hasOwn(ERROR_CODES, name)) return ERROR_CODES[name as StepErrorName];
  return name.startsWith('Polly.') ? ENGINE_FAILED : INTERNAL;
};

const named = (name: string, message: string) => Object.assign(new Error(message), { name });

export const stepError = (name: StepErrorName, message: string) => named(name, message);

/** The job finished or moved on meanwhile (canceled, say): the state machine ends quietly on this name. */
export const jobGone = (jobId: string) =>
  named('SpeechJobGone', `Speech job ${jobId} is no longer this attempt's to work on`);
