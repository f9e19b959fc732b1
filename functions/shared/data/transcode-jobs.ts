import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { countBilledUnits, countJobTransition } from '../logger';
import type { TranscodeOutput, TranscodePreset, TranscodeSource } from '../types/transcodes';
import type { BatchEntry } from './batch';
import { ddb, isConditionalCheckFailed, tableName } from './client';
import { type JobTransition, jobTransitionUpdate } from './job-transition';
import { cancellationReasons, sendTransaction } from './transactions';
import { transcodePartition } from './transcode-partition';
import {
  releaseTranscodeQueueSlotItem,
  TranscodeQueueFullError,
  takeTranscodeQueueSlotItem,
} from './transcode-queue';
import { putTranscodeReuseItem, type ReuseEntry, type TranscodeContent } from './transcode-reuse';
import { applyChange, type Change } from './update-expression';
import { addToMeterItem } from './usage-meters';

/**
 * Transcode jobs (`JOB#<jobId>` of the company's transcode partition): the read model that the API routes,
 * the workers, the workflow action and the MCP tool share. Every state change is a conditional write on the
 * current status and attempt, so a race between cancel, retry and a worker resolves to exactly one legal
 * transition. Moves into and out of the unfinished states take or release a queue slot in the same
 * transaction (`transcode-queue.ts`).
 *
 * The moves between unfinished states are single `UpdateItem`s and return the job as DynamoDB wrote it
 * (`ALL_NEW`). A transaction cannot return values, so the tenant's moves from an observed record (cancel,
 * retry) return the record computed here from that record and the transition's own `Change`. The workers'
 * moves into a final state (complete, fail) return nothing: their callers hold only the job's reference.
 *
 * Unfinished jobs are also in the sparse index partition `gsi1pk = TRANSCODE#UNFINISHED` (removed on the
 * move to a final state), which operator sweeps and the local stack's start-up read.
 */
export const transcodeJobKey = (companyId: string, jobId: string) => ({
  pk: transcodePartition(companyId),
  sk: `JOB#${jobId}`,
});
export const UNFINISHED_INDEX_PARTITION = 'TRANSCODE#UNFINISHED';
export const unfinishedIndexKey = (companyId: string, jobId: string) => ({
  gsi1pk: UNFINISHED_INDEX_PARTITION,
  gsi1sk: `${companyId}#${jobId}`,
});

export const UNFINISHED_STATUSES = ['pending', 'probing', 'transcoding', 'finalizing'] as const;
export const FINISHED_STATUSES = ['done', 'failed', 'canceled'] as const;
export type TranscodeStatus = (typeof UNFINISHED_STATUSES)[number] | (typeof FINISHED_STATUSES)[number];
type FinishedStatus = (typeof FINISHED_STATUSES)[number];

export interface TranscodeJobRecord {
  jobId: string;
  companyId: string;
  status: TranscodeStatus;
  preset: TranscodePreset;
  source: TranscodeSource;
  output?: TranscodeOutput;
  progress?: { phase: TranscodeStatus; percent?: number };
  error?: { code: string; message: string };
  attempt: number;
  reused: boolean;
  billedSeconds: number;
  /** ISO instant until which a worker holds the job; absent when no worker does. */
  leaseUntil?: string;
  executionArn?: string;
  /** From the probe: seconds of media and whether the source has video. */
  durationSeconds?: number;
  hasVideo?: boolean;
  createdAt: string;
  updatedAt: string;
  attemptStartedAt: string;
  finishedAt?: string;
}

/** One attempt of a job: what a worker step knows, and what every transition is conditional on. */
export interface TranscodeJobRef {
  companyId: string;
  jobId: string;
  attempt: number;
}

const ENTITY = 'transcode_job';

export const toTranscodeJob = (item: Record<string, unknown>): TranscodeJobRecord => {
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g2, entity: _e, ...record } = item;
  return record as unknown as TranscodeJobRecord;
};

/** A transcode job, for a batch read. */
export const transcodeJobEntry = (companyId: string, jobId: string): BatchEntry<TranscodeJobRecord> => ({
  key: transcodeJobKey(companyId, jobId),
  decode: toTranscodeJob,
});

export const getTranscodeJob = async (
  companyId: string,
  jobId: string,
): Promise<TranscodeJobRecord | undefined> => {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName(), Key: transcodeJobKey(companyId, jobId), ConsistentRead: true }),
  );
  return Item ? toTranscodeJob(Item) : undefined;
};

/** Every transition that was written is counted once (EMF), with the error code of a move to `failed`. */
const countTransition = (job: TranscodeJobRef, to: TranscodeStatus, code?: string) =>
  countJobTransition('transcode', to, code, { companyId: job.companyId, jobId: job.jobId });

/** The job is not in a state (or attempt) the transition starts from. */
export class TranscodeTransitionRefusedError extends Error {
  constructor(jobId: string, to: string) {
    super(`Transcode job ${jobId} cannot move to ${to} from its current state`);
    this.name = 'TranscodeTransitionRefusedError';
  }
}

/** Cancellation code of the transaction item at `index`, when `error` is a cancelled transaction. */
const cancellationCode = (error: unknown, index: number): string | undefined =>
  cancellationReasons(error)?.[index]?.Code;

/**
 * Writes a new `pending` job and takes one slot of the company's queue, in one transaction; a full queue
 * throws `TranscodeQueueFullError` and writes nothing.
 */
export const createTranscodeJob = async (job: TranscodeJobRecord, queueCap: number): Promise<void> => {
  const put = {
    Put: {
      TableName: tableName(),
      Item: {
        ...transcodeJobKey(job.companyId, job.jobId),
        ...unfinishedIndexKey(job.companyId, job.jobId),
        entity: ENTITY,
        ...job,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
  try {
    await sendTransaction(
      new TransactWriteCommand({ TransactItems: [put, takeTranscodeQueueSlotItem(job.companyId, queueCap)] }),
    );
  } catch (error) {
    if (cancellationCode(error, 1) === 'ConditionalCheckFailed') throw new TranscodeQueueFullError();
    throw error;
  }
  countTransition(job, 'pending');
};

interface Transition extends Pick<JobTransition, 'change' | 'condition'> {
  from: readonly TranscodeStatus[];
  /** Whether the move puts the job into the unfinished index or takes it out. */
  index?: 'add' | 'remove';
}

const INDEX_ATTRIBUTES = ['gsi1pk', 'gsi1sk'] as const;

/** The job's conditional update; the unfinished index attributes are the item's, not the record's. */
const jobUpdate = (job: TranscodeJobRef, { from, change, condition, index }: Transition) =>
  jobTransitionUpdate({
    key: transcodeJobKey(job.companyId, job.jobId),
    from,
    attempt: job.attempt,
    change: {
      set: { ...change.set, ...(index === 'add' ? unfinishedIndexKey(job.companyId, job.jobId) : {}) },
      remove: [...(change.remove ?? []), ...(index === 'remove' ? INDEX_ATTRIBUTES : [])],
    },
    ...(condition ? { condition } : {}),
  });

/** A move between unfinished states: one conditional `UpdateItem`, returning the job after the write. */
const moveUnfinished = async (
  job: TranscodeJobRef,
  to: TranscodeStatus,
  transition: Transition,
): Promise<TranscodeJobRecord> => {
  try {
    const { Attributes } = await ddb.send(
      new UpdateCommand({ ...jobUpdate(job, transition), ReturnValues: 'ALL_NEW' }),
    );
    if (transition.change.set.status === to) countTransition(job, to);
    return toTranscodeJob(Attributes ?? {});
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new TranscodeTransitionRefusedError(job.jobId, to);
    throw error;
  }
};

/** Probe step: `pending` → `probing`, taking the lease and recording the execution. */
export const claimTranscodeJob = (options: {
  job: TranscodeJobRef;
  leaseUntil: Date;
  executionArn?: string;
  now: Date;
}) =>
  moveUnfinished(options.job, 'probing', {
    from: ['pending'],
    change: {
      set: {
        status: 'probing',
        leaseUntil: options.leaseUntil.toISOString(),
        executionArn: options.executionArn,
        progress: { phase: 'probing' },
        updatedAt: options.now.toISOString(),
      },
    },
  });

/** Probe step: `probing` → `transcoding` with what the probe found. */
export const startTranscoding = (options: {
  job: TranscodeJobRef;
  leaseUntil: Date;
  durationSeconds: number;
  hasVideo: boolean;
  now: Date;
}) =>
  moveUnfinished(options.job, 'transcoding', {
    from: ['probing'],
    change: {
      set: {
        status: 'transcoding',
        leaseUntil: options.leaseUntil.toISOString(),
        durationSeconds: options.durationSeconds,
        hasVideo: options.hasVideo,
        progress: { phase: 'transcoding', percent: 0 },
        updatedAt: options.now.toISOString(),
      },
    },
  });

/** Media engine progress while `transcoding` (percent 0..100). */
export const recordTranscodeProgress = (options: { job: TranscodeJobRef; percent: number; now: Date }) =>
  moveUnfinished(options.job, 'transcoding', {
    from: ['transcoding'],
    change: {
      set: {
        progress: { phase: 'transcoding', percent: options.percent },
        updatedAt: options.now.toISOString(),
      },
    },
  });

/** Finalize step: `transcoding` → `finalizing`, renewing the lease. */
export const startFinalizing = (options: { job: TranscodeJobRef; leaseUntil: Date; now: Date }) =>
  moveUnfinished(options.job, 'finalizing', {
    from: ['transcoding'],
    change: {
      set: {
        status: 'finalizing',
        leaseUntil: options.leaseUntil.toISOString(),
        progress: { phase: 'finalizing', percent: 100 },
        updatedAt: options.now.toISOString(),
      },
    },
  });

/**
 * A move into a final state: the job's conditional update (clearing the lease and leaving the unfinished
 * index), the release of its queue slot and the `also` items (billing, reuse entry), in one transaction.
 * Only one such move can succeed per attempt, so whatever `also` writes is written once per attempt.
 * Returns the change made to the job record.
 */
const finish = async (options: {
  job: TranscodeJobRef;
  to: FinishedStatus;
  from: readonly TranscodeStatus[];
  change: Change;
  now: Date;
  also?: Record<string, unknown>[];
}): Promise<Change> => {
  const { job, to, now } = options;
  const change: Change = {
    set: { ...options.change.set, status: to, updatedAt: now.toISOString(), finishedAt: now.toISOString() },
    remove: [...(options.change.remove ?? []), 'leaseUntil'],
  };
  const update = jobUpdate(job, { from: options.from, change, index: 'remove' });
  try {
    await sendTransaction(
      new TransactWriteCommand({
        TransactItems: [
          { Update: update },
          releaseTranscodeQueueSlotItem(job.companyId),
          ...(options.also ?? []),
        ],
      }),
    );
  } catch (error) {
    if (cancellationCode(error, 0) === 'ConditionalCheckFailed') {
      throw new TranscodeTransitionRefusedError(job.jobId, to);
    }
    throw error;
  }
  countTransition(job, to, (options.change.set.error as { code?: string } | undefined)?.code);
  return change;
};

/** What a conversion's move to `done` records as its reuse entry. */
export interface ReuseOfConversion {
  content: TranscodeContent;
  entry: ReuseEntry;
}

/**
 * Finalize step: `finalizing` → `done` with the output, billing `billedSeconds` (`transcode_seconds`) and
 * writing the reuse entry in the same transaction, so only a billed, finished conversion is ever reused.
 */
export const completeTranscodeJob = async (options: {
  job: TranscodeJobRef;
  output: TranscodeOutput;
  billedSeconds: number;
  reuse?: ReuseOfConversion;
  now: Date;
}): Promise<void> => {
  const { job, output, billedSeconds, reuse, now } = options;
  await finish({
    job,
    to: 'done',
    from: ['finalizing'],
    change: {
      set: { output, reused: false, billedSeconds, progress: { phase: 'done', percent: 100 } },
      remove: ['error'],
    },
    now,
    also: [
      ...(billedSeconds > 0 ? [addToMeterItem(job.companyId, 'transcode_seconds', billedSeconds, now)] : []),
      ...(reuse ? [putTranscodeReuseItem(job.companyId, reuse.content, reuse.entry)] : []),
    ],
  });
  countBilledUnits('transcode_seconds', billedSeconds, { companyId: job.companyId, jobId: job.jobId });
};

/** Probe step, for content converted before: `probing` → `done` with the stored output, billing nothing. */
export const completeReusedTranscodeJob = async (options: {
  job: TranscodeJobRef;
  output: TranscodeOutput;
  now: Date;
}): Promise<void> => {
  await finish({
    job: options.job,
    to: 'done',
    from: ['probing'],
    change: {
      set: {
        output: options.output,
        reused: true,
        billedSeconds: 0,
        progress: { phase: 'done', percent: 100 },
      },
      remove: ['error'],
    },
    now: options.now,
  });
};

/** Any unfinished state of this attempt → `failed` with an error code; clears the lease. */
export const failTranscodeJob = async (options: {
  job: TranscodeJobRef;
  error: { code: string; message: string };
  now: Date;
}): Promise<void> => {
  await finish({
    job: options.job,
    to: 'failed',
    from: UNFINISHED_STATUSES,
    change: { set: { error: options.error }, remove: ['progress'] },
    now: options.now,
  });
};

/**
 * Tenant cancel: from the observed unfinished state of the observed attempt → `canceled`; clears the lease.
 * Returns the job as canceled.
 */
export const cancelTranscodeJob = async (options: {
  job: TranscodeJobRecord;
  now: Date;
}): Promise<TranscodeJobRecord> => {
  const { job, now } = options;
  const change = await finish({ job, to: 'canceled', from: [job.status], change: { set: {} }, now });
  return applyChange(job, change);
};

/** What a retry sets and clears of the previous attempt: one definition for the write and the record. */
const retryChange = (attempt: number, now: Date): Change => ({
  set: {
    status: 'pending',
    attempt: attempt + 1,
    reused: false,
    billedSeconds: 0,
    progress: { phase: 'pending' },
    updatedAt: now.toISOString(),
    attemptStartedAt: now.toISOString(),
  },
  remove: ['output', 'error', 'finishedAt', 'executionArn', 'leaseUntil'],
});

/**
 * Tenant retry: `failed|canceled` with no lease in the future → `pending` as attempt + 1, taking a queue slot
 * (conditional on the cap) in the same transaction. Clears the previous attempt's output, error and billing.
 * Returns the job as retried.
 */
export const retryTranscodeJob = async (options: {
  job: TranscodeJobRecord;
  queueCap: number;
  now: Date;
}): Promise<TranscodeJobRecord> => {
  const { job, queueCap, now } = options;
  const change = retryChange(job.attempt, now);
  const update = jobUpdate(job, {
    from: ['failed', 'canceled'],
    change,
    condition: {
      expression: '(attribute_not_exists(leaseUntil) OR leaseUntil <= :now)',
      values: { ':now': now.toISOString() },
    },
    index: 'add',
  });
  try {
    await sendTransaction(
      new TransactWriteCommand({
        TransactItems: [{ Update: update }, takeTranscodeQueueSlotItem(job.companyId, queueCap)],
      }),
    );
  } catch (error) {
    if (cancellationCode(error, 0) === 'ConditionalCheckFailed') {
      throw new TranscodeTransitionRefusedError(job.jobId, 'pending');
    }
    if (cancellationCode(error, 1) === 'ConditionalCheckFailed') throw new TranscodeQueueFullError();
    throw error;
  }
  countTransition(job, 'pending');
  return applyChange(job, change);
};
