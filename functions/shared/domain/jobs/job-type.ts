import { createJobLifecycle, type JobStoreConfig } from '../../data/jobs/lifecycle';
import { jobMoves } from '../../data/jobs/moves';
import type { JobRecordBase, JobRef } from '../../data/jobs/record';
import type { ErrorCode } from '../../errors';
import { lazy } from '../../lazy';
import type { PlanLimits } from '../../types/plans';
import type { StateMachineName } from '../../types/state-machines';

/**
 * The job engine's contract: what a job type supplies, and nothing more. Everything a job type shares with
 * the others is the engine's (`domain/jobs/`, `data/jobs/`): enqueue (storage reference, plan limits, quota,
 * queue slot, reuse billed 0; the route's `Idempotency-Key`), the state table and its conditional moves,
 * leases, cancel and retry, the worker shell (error mapping, fail, step repeat safety, progress), events on
 * final moves, crash recovery, listing and the public view's envelope.
 *
 * A type supplies: its record's attributes and keys (`store`, a data module's configuration), its public
 * view (`view`), the plan limits it is held to (`limits`), the problem codes of its refusals (`codes`), the
 * error table of its steps (`errors`), its state machine (`machine`), its steps (a worker built with
 * `createJobWorker`) and the deletion of the input files it stores beside the record (`deleteInput`). Input
 * schemas live in its routes; its reuse key and meter units are computed by its steps (or at enqueue,
 * `enqueueJob`'s `reuse`).
 */

/** The error a failed attempt records: a stable code and a message safe to show the tenant. */
export interface JobError {
  code: string;
  message: string;
}

export type { JobStoreConfig };

export interface JobTypeOptions<S extends string, R extends JobRecordBase<S>, E extends object, V> {
  /** Job ids of the type start with it (`tc_`); list cursors are checked against it. */
  idPrefix: string;
  /** What the type is called in messages: `transcode` gives "No transcode job with this id." */
  noun: string;
  machine: StateMachineName;
  /** The machine of one job's attempt, where it depends on the job (default: `machine`). */
  machineOf?: (job: R) => StateMachineName;
  store: JobStoreConfig<S, R, E>;
  /** The job as the tenant sees it (routes, events, MCP, workflow actions). */
  view: (job: R) => V;
  limits: {
    /** The month's allowance of the type's meter. */
    quota: (limits: PlanLimits) => number;
    /** The company's cap of unfinished jobs of the type. */
    queueCap: (limits: PlanLimits) => number;
  };
  codes: {
    quotaExceeded: ErrorCode;
    queueFull: ErrorCode;
    /** Cancel of a finished job (absent: the type has no cancel). */
    notCancelable?: ErrorCode;
    /** Retry refused (absent: the type has no retry). */
    notRetryable?: ErrorCode;
  };
  /**
   * Deletes the files the type stores for a job beside its record (its input; never throws), which the engine
   * calls once the job is final (done, failed, canceled, or never written). Only for a type without retry: a
   * retried attempt reads its input again.
   */
  deleteInput?: (job: JobRef) => Promise<void>;
  /** What its steps do, in messages: `conversion` gives "The conversion was interrupted; …". */
  activity: string;
  /** What the tenant does after a failure: "retry the job", "enqueue it again". */
  retryHint: string;
  errors: {
    /** Step Functions error name → the job's error, besides the common ones (`jobErrorFor`). */
    table: Readonly<Record<string, JobError>>;
    /** Error names of the type's engine integration (`MediaConvert.`) map to `engineFailed`. */
    enginePrefix?: string;
    engineFailed: JobError;
    /** The error name a step ends with when its job moved on; the machine ends quietly on it. */
    gone: string;
  };
}

export const defineJobType = <S extends string, R extends JobRecordBase<S>, E extends object, V>(
  options: JobTypeOptions<S, R, E, V>,
) => {
  // Built by the first job operation of the instance, not when the type's module loads.
  const lifecycle = lazy(() => createJobLifecycle<S, R, E>(options.store));
  const moves = lazy(() => jobMoves(lifecycle()));
  return {
    ...options,
    get lifecycle() {
      return lifecycle();
    },
    get moves() {
      return moves();
    },
  };
};

export type JobTypeDefinition<
  S extends string = string,
  R extends JobRecordBase<S> = JobRecordBase<S>,
  E extends object = object,
  V = unknown,
> = ReturnType<typeof defineJobType<S, R, E, V>>;

/**
 * What the engine's type-independent helpers read of a job type (any definition is one, whatever its
 * record type).
 */
export type JobTypeInfo = Pick<
  JobTypeOptions<string, never, object, unknown>,
  | 'idPrefix'
  | 'noun'
  | 'machine'
  | 'machineOf'
  | 'limits'
  | 'codes'
  | 'activity'
  | 'retryHint'
  | 'errors'
  | 'deleteInput'
> & {
  store: Pick<JobStoreConfig<string, never, object>, 'meter' | 'jobType'>;
  moves: { fail: (options: { job: JobRef; error: JobError; now: Date }) => Promise<unknown> };
};

/** The words of a type's messages. */
type Words = Pick<JobTypeOptions<string, never, object, unknown>, 'activity' | 'retryHint'>;

const say = (type: Words, what: string) => `The ${type.activity} ${what}; ${type.retryHint}.`;

/** Any error no table names (a bug, a runtime or permission error): nothing to act on but retry. */
export const internalError = (type: Words): JobError => ({
  code: 'internal',
  message: say(type, 'failed unexpectedly'),
});

/** The error of a job its execution lost (a crash of the platform), recorded by recovery. */
export const interruptedError = (type: Words): JobError => ({
  code: 'interrupted',
  message: say(type, 'was interrupted'),
});

/** The error of an attempt whose execution could not be started. */
export const startFailedError = (type: Words): JobError => ({
  code: 'start_failed',
  message: say(type, 'could not be started'),
});

/**
 * The errors every type's steps share (a type's own table may name more, or override one): the source a
 * job reads, the engine's task failures and timeouts, and an interruption.
 */
const commonErrors = (
  type: Words & Pick<JobTypeOptions<string, never, object, unknown>, 'errors'>,
): Record<string, JobError> => {
  const timeout = { code: 'timeout', message: `The ${type.activity} took too long.` };
  return {
    SourceMissing: { code: 'source_missing', message: 'The source file no longer exists.' },
    SourceUnreadable: { code: 'source_unreadable', message: 'The source is not readable audio or video.' },
    SourceTooLarge: { code: 'source_too_large', message: "The source is larger than your plan's limit." },
    SourceTooLong: { code: 'source_too_long', message: "The source is longer than your plan's limit." },
    'States.TaskFailed': type.errors.engineFailed,
    'States.Timeout': timeout,
    'States.HeartbeatTimeout': timeout,
    Interrupted: interruptedError(type),
  };
};

/**
 * The error of a Step Functions error name: the type's table, then the common one, the type's engine
 * integration (`MediaConvert.*`) as an engine failure, anything else (or no name) as `internal`.
 */
export const jobErrorFor = (
  type: Words & Pick<JobTypeOptions<string, never, object, unknown>, 'errors'>,
  name: string | undefined,
): JobError => {
  if (name === undefined) return internalError(type);
  const common = commonErrors(type);
  if (Object.hasOwn(type.errors.table, name)) return type.errors.table[name] ?? internalError(type);
  if (Object.hasOwn(common, name)) return common[name] ?? internalError(type);
  const prefix = type.errors.enginePrefix;
  return prefix && name.startsWith(prefix) ? type.errors.engineFailed : internalError(type);
};
