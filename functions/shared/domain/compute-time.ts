/**
 * Compute time of a job, as the usage meters bill it (`computeMs.workers`, `computeMs.media`): the time its
 * worker steps ran, each measured by the step itself, and the media engine's own run time, from the
 * engine's report of its job (MediaConvert `Job.Timing`, Transcribe `StartTime` and `CompletionTime`; the
 * local engines report the same fields). Billed once, in the job's move to `done`.
 */

/** Seconds billed for media of `durationSeconds`: rounded up to whole seconds, at least 1. */
export const billableSeconds = (durationSeconds: number) => Math.max(1, Math.ceil(durationSeconds));

/** A step's clock: the milliseconds since it started, whole. */
export const startStepClock = (): (() => number) => {
  const started = performance.now();
  return () => Math.max(0, Math.round(performance.now() - started));
};

/**
 * A timestamp as an engine reports it through Step Functions: epoch seconds (the JSON wire form of
 * MediaConvert and Transcribe) or an ISO 8601 string; `undefined` when it is neither.
 */
const epochMs = (value: unknown): number | undefined => {
  if (typeof value === 'number' && Number.isFinite(value)) return value * 1000;
  if (typeof value === 'string') {
    const parsed = Date.parse(value);
    return Number.isNaN(parsed) ? undefined : parsed;
  }
  return undefined;
};

/** Milliseconds from an engine's start to its finish; 0 when either is missing or they are out of order. */
export const engineRunMs = (start: unknown, finish: unknown): number => {
  const from = epochMs(start);
  const to = epochMs(finish);
  return from === undefined || to === undefined ? 0 : Math.max(0, Math.round(to - from));
};
