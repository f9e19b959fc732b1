import type { JobType } from '../../observability/metric-names';
import type { EventType } from '../../types/events';
import type { MeterName } from '../../types/meters';
import type * as zm from '../../zod-mini';
import type { JobTransition } from './transition';

/**
 * What configures a job type's lifecycle (`lifecycle.ts`), and the errors its moves throw. A type's data
 * module declares its `JobStoreConfig`; the type's domain module adds its view (`domain/jobs/job-type.ts`).
 */
export interface JobLifecycleConfig<S extends string, R = unknown, E = unknown> {
  jobType: JobType;
  /** The company partition of the type's items, for example `CO#<companyId>#TRANSCRIPTION`. */
  partition: (companyId: string) => string;
  /** The entity names of the job, queue and reuse items. */
  entities: { job: string; queue: string; reuse: string };
  /**
   * The attributes of the job item and of a reuse entry (reads decode through them): each a function that
   * builds its schema on first use (`lazy`), so loading a type's module builds none.
   */
  schemas: { job: () => zm.ZodMiniType<R>; reuse: () => zm.ZodMiniType<E> };
  unfinishedIndexPartition: string;
  unfinished: readonly S[];
  finished: readonly S[];
  meter: MeterName;
  /** Attributes of an attempt's result (`output`, `result`): cleared by a retry. */
  resultFields?: readonly string[];
}

/**
 * A job type's store, as its data module declares it: the lifecycle's configuration and the event each final
 * state raises (`transcode.done`, …), which the event dispatcher raises from the move's stream record with
 * the job's public view (`domain/jobs/settle-stream.ts`, decision 0065).
 */
export type JobStoreConfig<S extends string, R, E> = JobLifecycleConfig<S, R, E> & {
  eventTypes?: Partial<Record<S, EventType>>;
};

/** The job is not in a state (or attempt) the transition starts from. */
export class JobTransitionRefusedError extends Error {
  constructor(jobType: string, jobId: string, to: string) {
    super(`${jobType} job ${jobId} cannot move to ${to} from its current state`);
    this.name = 'JobTransitionRefusedError';
  }
}

export class JobQueueFullError extends Error {
  constructor(jobType: string) {
    super(`The company has as many unfinished ${jobType} jobs as its plan allows`);
    this.name = 'JobQueueFullError';
  }
}

/** A move between unfinished states, or the extra items and change of a move into a final state. */
export interface MoveOptions<S extends string> extends Pick<JobTransition, 'change' | 'condition'> {
  from: readonly S[];
}
