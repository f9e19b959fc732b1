import { JobTransitionRefusedError } from '../../data/jobs/lifecycle';
import type { JobFields } from '../../data/jobs/moves';
import type { JobRecordBase, JobRef } from '../../data/jobs/record';
import { logger } from '../../observability/logger';
import { startStepClock } from '../compute-time';
import { type JobTypeDefinition, jobErrorFor } from './job-type';

/**
 * The worker shell every job type's Lambda tasks run in. A type writes only its steps; the shell gives each
 * a `JobStep`: the attempt it works on, the clock, and the moves of the state table made safe for a step:
 * - a move refused because the job was canceled, finished, or retried into another attempt ends the step
 *   with the type's "gone" error (the machine ends quietly on it, writing nothing);
 * - a repeated invocation of the same step (a Lambda or Step Functions retry after the first one wrote)
 *   finds its own attempt already in or past the target state and continues from there;
 * - errors a step throws keep their `name` as the Step Functions error name; the `fail` action (the `Catch`
 *   of every Task state) maps that name to the job's error (`jobErrorFor`) and moves the attempt to `failed`.
 */
export interface StepInput extends JobRef {
  action: string;
  executionArn?: string;
}

export interface FailInput extends JobRef {
  action: 'fail';
  /** The caught error of the failed state (`ResultPath: $.error`). */
  error?: { Error?: string; Cause?: string };
}

export interface StepDeps {
  now?: () => Date;
}

const named = (name: string, message: string) => Object.assign(new Error(message), { name });

/** An error the fail step records with the code its name maps to. */
export const stepError = (name: string, message: string): Error => named(name, message);

/**
 * The machine's name from an execution ARN (`arn:...:execution:<machine>:<id>`), for engines whose events
 * name the machine that started them.
 */
export const stateMachineOf = (executionArn: string | undefined): { stateMachine?: string } => {
  const parts = executionArn?.split(':') ?? [];
  return parts[5] === 'execution' && parts[6] ? { stateMachine: parts[6] } : {};
};

/**
 * The hand-over of an attempt from an Express execution to the Standard machine `machineArn` (its `handoff`
 * input): the execution of the attempt's name there, to record on the job, and the start the machine makes.
 */
export const handoverTo = (
  machineArn: string,
  ref: JobRef,
  source?: { bucket: string; fullPath: string },
) => {
  const name = `${ref.jobId}-a${ref.attempt}`;
  return {
    executionArn: `${machineArn.replace(':stateMachine:', ':execution:')}:${name}`,
    handoff: { name, input: { ...ref, ...(source ? { source } : {}) } },
  };
};

/** The lease of a step: until `seconds` from now. */
export const leaseFrom = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000);

export type AdvanceOptions<S extends string, R> = {
  from: readonly S[];
  to: S;
  /** Seconds the step holds the job from now. */
  leaseSeconds?: number;
  executionArn?: string;
  percent?: number;
  set?: Partial<JobFields<R>>;
};

export const jobStep = <S extends string, R extends JobRecordBase<S>, E extends object, V>(
  type: JobTypeDefinition<S, R, E, V>,
  ref: JobRef,
  now: Date,
) => {
  const gone = () =>
    named(type.errors.gone, `The ${type.noun} job ${ref.jobId} is no longer this attempt's to work on`);
  const order = type.store.unfinished;

  /**
   * Runs a move into a final state, then deletes the job's input files; a refused move means the job is no
   * longer this attempt's.
   */
  const finishOrGone = async <T>(write: () => Promise<T>): Promise<T> => {
    let written: T;
    try {
      written = await write();
    } catch (error) {
      if (error instanceof JobTransitionRefusedError) throw gone();
      throw error;
    }
    await type.deleteInput?.(ref);
    return written;
  };

  /** The job of this attempt in one of `statuses` (default: any unfinished one), else gone. */
  const read = async (statuses: readonly S[] = order): Promise<R> => {
    const job = await type.lifecycle.getJob(ref.companyId, ref.jobId);
    if (!job || job.attempt !== ref.attempt || !statuses.includes(job.status)) throw gone();
    return job;
  };

  return {
    type,
    ref,
    now,
    elapsed: startStepClock(),
    gone,
    read,
    /**
     * A move between unfinished states. Refused, it is a repeated step when the job of this attempt is
     * already in or past `to` (the job is returned as it is), else the job is gone.
     */
    advance: async (options: AdvanceOptions<S, R>): Promise<R> => {
      const { leaseSeconds, ...rest } = options;
      try {
        return await type.moves.advance({
          ...rest,
          job: ref,
          now,
          ...(leaseSeconds === undefined ? {} : { leaseUntil: leaseFrom(now, leaseSeconds) }),
        });
      } catch (error) {
        if (!(error instanceof JobTransitionRefusedError)) throw error;
        const job = await type.lifecycle.getJob(ref.companyId, ref.jobId);
        if (job && job.attempt === ref.attempt && order.indexOf(job.status) >= order.indexOf(options.to)) {
          logger.info(`${type.noun} step repeated`, {
            jobId: ref.jobId,
            attempt: ref.attempt,
            status: job.status,
          });
          return job;
        }
        throw gone();
      }
    },
    /**
     * Progress of the running state; `false` when the job is no longer in it. With `start`, the move into
     * `phase` from the states it names (the engine's first report of a job its step left in an earlier
     * state), recording what the step found (`set`).
     */
    progress: async (
      phase: S,
      percent: number,
      start?: { from: readonly S[]; set: Partial<JobFields<R>> },
    ): Promise<boolean> => {
      try {
        if (start)
          await type.moves.advance({ job: ref, from: start.from, to: phase, percent, set: start.set, now });
        else await type.moves.progress({ job: ref, phase, percent, now });
        return true;
      } catch (error) {
        if (error instanceof JobTransitionRefusedError) return false;
        throw error;
      }
    },
    /** The billed move to `done` (meter, reuse entry, event in one transaction), or gone. */
    complete: (options: Omit<Parameters<typeof type.moves.complete>[0], 'job' | 'now'>) =>
      finishOrGone(() => type.moves.complete({ ...options, job: ref, now })),
    /**
     * Finishes the job with an earlier job's stored result (`entry`, billed 0, or gone) when there is one and
     * `usable` says its files still exist; `false` when not, and the step goes on with its own work.
     */
    reuseStored: async (
      entry: E | undefined,
      usable: (entry: E) => Promise<boolean>,
      move: { from: S; set: (entry: E) => Partial<JobFields<R>> },
    ): Promise<boolean> => {
      if (!entry || !(await usable(entry))) return false;
      const { from, set } = move;
      await finishOrGone(() => type.moves.completeReused({ from: [from], set: set(entry), job: ref, now }));
      const source = 'sourceJobId' in entry ? { sourceJobId: String(entry.sourceJobId) } : {};
      logger.info(`${type.noun} job reused`, { jobId: ref.jobId, ...source });
      return true;
    },
    /** The move to `done` with an earlier job's result, billed 0, or gone. */
    completeReused: (options: Omit<Parameters<typeof type.moves.completeReused>[0], 'job' | 'now'>) =>
      finishOrGone(() => type.moves.completeReused({ ...options, job: ref, now })),
  };
};

export type JobStep<S extends string, R extends JobRecordBase<S>, E extends object, V> = ReturnType<
  typeof jobStep<S, R, E, V>
>;

/**
 * Records an engine's progress event on the job its metadata names (strings, as the engine's job carries
 * them: `companyId`, `jobId`, `attempt`). Only a job of the same attempt still in `phase` takes it; anything
 * else (a late event, a canceled or retried job) is ignored. Capped at 99: 100 is written by finalize.
 * With `start`, the report also moves a job of the attempt still in one of `start.from` into `phase`
 * (an engine whose step left the job in an earlier state, so that a fast run writes no state of its own).
 */
export const recordEngineProgress = async <S extends string, R extends JobRecordBase<S>, E extends object, V>(
  type: JobTypeDefinition<S, R, E, V>,
  phase: S,
  event: {
    meta?: Record<string, string>;
    percent: number;
    now: Date;
    start?: { from: readonly S[]; set: Partial<JobFields<R>> };
  },
): Promise<{ recorded: boolean; percent?: number }> => {
  const { meta = {}, now } = event;
  const attempt = Number(meta.attempt);
  if (!meta.companyId || !meta.jobId || !Number.isInteger(attempt) || !Number.isFinite(event.percent)) {
    return { recorded: false };
  }
  const percent = Math.max(0, Math.min(99, Math.floor(event.percent)));
  const step = jobStep(type, { companyId: meta.companyId, jobId: meta.jobId, attempt }, now);
  return (await step.progress(phase, percent, event.start))
    ? { recorded: true, percent }
    : { recorded: false };
};

/** Runs one step of `type` for the attempt `input` names, with its `JobStep`. */
export const runStep = <S extends string, R extends JobRecordBase<S>, E extends object, V, T>(
  type: JobTypeDefinition<S, R, E, V>,
  input: JobRef,
  deps: StepDeps,
  body: (step: JobStep<S, R, E, V>) => Promise<T>,
): Promise<T> =>
  body(
    jobStep(
      type,
      { companyId: input.companyId, jobId: input.jobId, attempt: input.attempt },
      deps.now?.() ?? new Date(),
    ),
  );

/**
 * The fail step: records the caught error on the job as its error code, moving this attempt to `failed`
 * (clearing the lease, releasing the queue slot), and deletes the job's input files. A job that moved on keeps its state: `recorded: false`.
 */
export const failStep = async <S extends string, R extends JobRecordBase<S>, E extends object, V>(
  type: JobTypeDefinition<S, R, E, V>,
  input: FailInput,
  deps: StepDeps,
): Promise<JobRef & { recorded: boolean }> => {
  const now = deps.now?.() ?? new Date();
  const ref = { companyId: input.companyId, jobId: input.jobId, attempt: input.attempt };
  const error = jobErrorFor(type, input.error?.Error);
  try {
    await type.moves.fail({ job: ref, error, now });
    await type.deleteInput?.(ref);
    logger.info(`${type.noun} failed`, {
      jobId: ref.jobId,
      attempt: ref.attempt,
      code: error.code,
      cause: input.error?.Error,
    });
    return { ...ref, recorded: true };
  } catch (e) {
    if (e instanceof JobTransitionRefusedError) return { ...ref, recorded: false };
    throw e;
  }
};

const isFailInput = (input: { action: string }): input is FailInput =>
  input.action === 'fail' && 'jobId' in input;

/** A type's steps, one per action, each taking its own input (`fail` is the shell's unless named). */
export type JobSteps = Record<string, (input: never) => Promise<unknown>>;

/** What a worker takes: the input of any of its steps, or the shell's `fail`. */
export type WorkerInputOf<T extends JobSteps> = Parameters<T[keyof T]>[0] | FailInput;

/**
 * A type's worker: its Lambda tasks dispatched by `action` to its steps, plus the shell's `fail`. Actions in
 * `unkeyed` are not about one attempt (engine events) and run without the job's log keys.
 */
export const createJobWorker =
  <S extends string, R extends JobRecordBase<S>, E extends object, V, T extends JobSteps>(
    type: JobTypeDefinition<S, R, E, V>,
    steps: T,
    options: StepDeps & { unkeyed?: readonly (keyof T)[] } = {},
  ) =>
  async (input: WorkerInputOf<T>): Promise<unknown> => {
    const { action } = input as { action: string };
    const step = Object.hasOwn(steps, action)
      ? (steps[action] as ((input: unknown) => Promise<unknown>) | undefined)
      : undefined;
    if (step && options.unkeyed?.includes(action)) return step(input);
    const keys = input as Partial<JobRef>;
    logger.appendKeys({ jobId: keys.jobId, companyId: keys.companyId });
    try {
      if (step) return await step(input);
      if (isFailInput(input)) return await failStep(type, input, options);
      throw new Error(`Unknown ${type.noun} worker action ${action}`);
    } finally {
      logger.resetKeys();
    }
  };
