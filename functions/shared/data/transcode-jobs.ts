import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TranscodePreset } from '../types/transcodes';
import type { BatchEntry } from './batch';
import { ddb, isConditionalCheckFailed, tableName } from './client';
import { TABLE_SHAPE } from './table';
import { cancellationReasons, sendTransaction } from './transactions';
import { addToMeterItem } from './usage-meters';

/**
 * Transcode jobs: the read model that the API routes, the workers, the workflow action and the MCP tool
 * share. Every state change is a conditional write on the current status and attempt, so a race between
 * cancel, retry and a worker resolves to exactly one legal transition.
 *
 * Items of the company partition `CO#<companyId>#TRANSCODE`:
 * - `JOB#<jobId>`: the job.
 * - `QUEUE`: `unfinished`, the number of the company's jobs in `pending|probing|transcoding|finalizing`.
 *   It changes only inside the same transaction as the job's move into or out of those states, so it cannot
 *   drift: enqueue and retry add 1 (conditional on the plan's cap), every move to `done|failed|canceled`
 *   subtracts 1.
 * - `REUSE#<preset>#<size>#<etag>`: the stored output of an earlier conversion of the same content.
 *
 * Unfinished jobs are also in the sparse index partition `gsi1pk = TRANSCODE#UNFINISHED` (removed on the
 * move to a final state), which the local stack reads at start-up to mark interrupted jobs.
 */
export const transcodePartition = (companyId: string) => `CO#${companyId}#TRANSCODE`;
export const transcodeJobKey = (companyId: string, jobId: string) => ({
  pk: transcodePartition(companyId),
  sk: `JOB#${jobId}`,
});
export const transcodeQueueKey = (companyId: string) => ({ pk: transcodePartition(companyId), sk: 'QUEUE' });
export const transcodeReuseKey = (companyId: string, preset: string, size: number, etag: string) => ({
  pk: transcodePartition(companyId),
  sk: `REUSE#${preset}#${size}#${etag.replace(/"/g, '')}`,
});
export const UNFINISHED_INDEX_PARTITION = 'TRANSCODE#UNFINISHED';
export const unfinishedIndexKey = (companyId: string, jobId: string) => ({
  gsi1pk: UNFINISHED_INDEX_PARTITION,
  gsi1sk: `${companyId}#${jobId}`,
});

export const UNFINISHED_STATUSES = ['pending', 'probing', 'transcoding', 'finalizing'] as const;
export const FINISHED_STATUSES = ['done', 'failed', 'canceled'] as const;
export type TranscodeStatus = (typeof UNFINISHED_STATUSES)[number] | (typeof FINISHED_STATUSES)[number];

export interface ObjectReference {
  bucket: string;
  fullPath: string;
}

export interface TranscodeSource extends ObjectReference {
  size: number;
  etag: string;
  contentType?: string;
}

export interface TranscodeOutput extends ObjectReference {
  size: number;
  contentType: string;
}

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

const ENTITY = 'transcode_job';

export const toTranscodeJob = (item: Record<string, unknown>): TranscodeJobRecord => {
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g2, entity: _e, ...record } = item;
  return record as unknown as TranscodeJobRecord;
};

export class TranscodeQueueFullError extends Error {
  constructor() {
    super('The company has as many unfinished transcode jobs as its plan allows');
    this.name = 'TranscodeQueueFullError';
  }
}

/** The job is not in a state (or attempt) the transition starts from. */
export class TranscodeTransitionRefusedError extends Error {
  constructor(jobId: string, to: string) {
    super(`Transcode job ${jobId} cannot move to ${to} from its current state`);
    this.name = 'TranscodeTransitionRefusedError';
  }
}

const cancellationCodes = (error: unknown): string[] | undefined =>
  cancellationReasons(error)?.map((r) => r.Code ?? 'None');

const queueUpdate = (companyId: string, delta: 1 | -1, cap?: number) => ({
  Update: {
    TableName: tableName(),
    Key: transcodeQueueKey(companyId),
    UpdateExpression: 'ADD unfinished :delta SET entity = :entity',
    ...(cap === undefined
      ? {}
      : { ConditionExpression: 'attribute_not_exists(unfinished) OR unfinished < :cap' }),
    ExpressionAttributeValues: {
      ':delta': delta,
      ':entity': 'transcode_queue',
      ...(cap === undefined ? {} : { ':cap': cap }),
    },
  },
});

/**
 * Writes a new `pending` job and takes one slot of the company's queue, in one transaction; a full queue
 * throws `TranscodeQueueFullError` and writes nothing.
 */
export const createTranscodeJob = async (job: TranscodeJobRecord, queueCap: number): Promise<void> => {
  try {
    await sendTransaction(
      new TransactWriteCommand({
        TransactItems: [
          {
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
          },
          queueUpdate(job.companyId, 1, queueCap),
        ],
      }),
    );
  } catch (error) {
    const codes = cancellationCodes(error);
    if (codes?.[1] === 'ConditionalCheckFailed') throw new TranscodeQueueFullError();
    throw error;
  }
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

/** Number of unfinished jobs the queue counter holds (0 when it was never written). */
export const readTranscodeQueue = async (companyId: string): Promise<number> => {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName(), Key: transcodeQueueKey(companyId), ConsistentRead: true }),
  );
  return Number(Item?.unfinished ?? 0);
};

interface Expression {
  sets: string[];
  removes: string[];
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/** Builds `SET a = :a ... REMOVE b ...` from plain objects; attribute names are always aliased. */
const expression = (set: Record<string, unknown>, remove: string[]): Expression => {
  const e: Expression = { sets: [], removes: [], names: {}, values: {} };
  for (const [name, value] of Object.entries(set)) {
    if (value === undefined) continue;
    e.names[`#${name}`] = name;
    e.values[`:${name}`] = value;
    e.sets.push(`#${name} = :${name}`);
  }
  for (const name of remove) {
    e.names[`#${name}`] = name;
    e.removes.push(`#${name}`);
  }
  return e;
};

const updateExpression = (e: Expression): string =>
  [e.sets.length ? `SET ${e.sets.join(', ')}` : '', e.removes.length ? `REMOVE ${e.removes.join(', ')}` : '']
    .filter(Boolean)
    .join(' ');

interface TransitionSpec {
  from: readonly TranscodeStatus[];
  /** The attempt the writer observed; a retried job has moved on and refuses the write. */
  attempt: number;
  set: Record<string, unknown>;
  remove?: string[];
  /** Extra condition on the job, for example a lease that must not be in the future. */
  condition?: { expression: string; values: Record<string, unknown> };
}

const jobUpdate = (companyId: string, jobId: string, spec: TransitionSpec) => {
  const e = expression(spec.set, spec.remove ?? []);
  const fromValues = Object.fromEntries(spec.from.map((s, i) => [`:from${i}`, s]));
  e.names['#status'] = 'status';
  e.names['#attempt'] = 'attempt';
  return {
    TableName: tableName(),
    Key: transcodeJobKey(companyId, jobId),
    UpdateExpression: updateExpression(e),
    ConditionExpression: [
      'attribute_exists(pk)',
      `#status IN (${Object.keys(fromValues).join(', ')})`,
      '#attempt = :observedAttempt',
      ...(spec.condition ? [spec.condition.expression] : []),
    ].join(' AND '),
    ExpressionAttributeNames: e.names,
    ExpressionAttributeValues: {
      ...e.values,
      ...fromValues,
      ':observedAttempt': spec.attempt,
      ...(spec.condition?.values ?? {}),
    },
  };
};

/** A move between unfinished states: one conditional `UpdateItem`, returning the job after the write. */
const moveUnfinished = async (
  companyId: string,
  jobId: string,
  to: TranscodeStatus,
  spec: TransitionSpec,
): Promise<TranscodeJobRecord> => {
  try {
    const { Attributes } = await ddb.send(
      new UpdateCommand({ ...jobUpdate(companyId, jobId, spec), ReturnValues: 'ALL_NEW' }),
    );
    return toTranscodeJob(Attributes ?? {});
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new TranscodeTransitionRefusedError(jobId, to);
    throw error;
  }
};

/**
 * A move into a final state (`done`, `failed`, `canceled`): the job's conditional update, the release of
 * its queue slot and, for a billed `done`, the `transcode_seconds` meter, in one transaction. Only one such
 * move can succeed per attempt, so the meter is written exactly once per billed attempt.
 */
const finish = async (
  companyId: string,
  jobId: string,
  to: (typeof FINISHED_STATUSES)[number],
  spec: TransitionSpec,
  now: Date,
  billSeconds = 0,
  also: Record<string, unknown>[] = [],
): Promise<void> => {
  const job = jobUpdate(companyId, jobId, {
    ...spec,
    set: { ...spec.set, status: to, updatedAt: now.toISOString(), finishedAt: now.toISOString() },
    remove: [...(spec.remove ?? []), 'leaseUntil', 'gsi1pk', 'gsi1sk'],
  });
  const meter = billSeconds > 0 ? [addToMeterItem(companyId, 'transcode_seconds', billSeconds, now)] : [];
  try {
    await sendTransaction(
      new TransactWriteCommand({
        TransactItems: [{ Update: job }, queueUpdate(companyId, -1), ...meter, ...also],
      }),
    );
  } catch (error) {
    const codes = cancellationCodes(error);
    if (codes?.[0] === 'ConditionalCheckFailed') throw new TranscodeTransitionRefusedError(jobId, to);
    throw error;
  }
};

/** Probe worker: `pending` → `probing`, taking the lease and recording the execution. */
export const claimTranscodeJob = (
  companyId: string,
  jobId: string,
  attempt: number,
  input: { leaseUntil: Date; executionArn?: string },
  now: Date,
) =>
  moveUnfinished(companyId, jobId, 'probing', {
    from: ['pending'],
    attempt,
    set: {
      status: 'probing',
      leaseUntil: input.leaseUntil.toISOString(),
      executionArn: input.executionArn,
      progress: { phase: 'probing' },
      updatedAt: now.toISOString(),
    },
  });

/** Probe worker: `probing` → `transcoding` with what the probe found. */
export const startTranscoding = (
  companyId: string,
  jobId: string,
  attempt: number,
  input: { leaseUntil: Date; durationSeconds: number; hasVideo: boolean },
  now: Date,
) =>
  moveUnfinished(companyId, jobId, 'transcoding', {
    from: ['probing'],
    attempt,
    set: {
      status: 'transcoding',
      leaseUntil: input.leaseUntil.toISOString(),
      durationSeconds: input.durationSeconds,
      hasVideo: input.hasVideo,
      progress: { phase: 'transcoding', percent: 0 },
      updatedAt: now.toISOString(),
    },
  });

/** Media engine progress while `transcoding` (percent 0..100). */
export const recordTranscodeProgress = (
  companyId: string,
  jobId: string,
  attempt: number,
  percent: number,
  now: Date,
) =>
  moveUnfinished(companyId, jobId, 'transcoding', {
    from: ['transcoding'],
    attempt,
    set: { progress: { phase: 'transcoding', percent }, updatedAt: now.toISOString() },
  });

/** Finalize worker: `transcoding` → `finalizing`, renewing the lease. */
export const startFinalizing = (
  companyId: string,
  jobId: string,
  attempt: number,
  leaseUntil: Date,
  now: Date,
) =>
  moveUnfinished(companyId, jobId, 'finalizing', {
    from: ['transcoding'],
    attempt,
    set: {
      status: 'finalizing',
      leaseUntil: leaseUntil.toISOString(),
      progress: { phase: 'finalizing', percent: 100 },
      updatedAt: now.toISOString(),
    },
  });

/** The reuse entry of a conversion: which content (probed size and ETag) it converted, and to what. */
export interface ReuseRecord {
  preset: string;
  source: { size: number; etag: string };
  entry: ReuseEntry;
}

const reusePut = (companyId: string, reuse: ReuseRecord) => ({
  Put: {
    TableName: tableName(),
    Item: {
      ...transcodeReuseKey(companyId, reuse.preset, reuse.source.size, reuse.source.etag),
      entity: 'transcode_reuse',
      ...reuse.entry,
    },
  },
});

/**
 * `finalizing` → `done` with the output, billing `billedSeconds` and recording the reuse entry in the same
 * transaction (so only a billed, finished conversion is ever reused); or, for a reused output, `probing` →
 * `done` billing nothing.
 */
export const completeTranscodeJob = (
  companyId: string,
  jobId: string,
  attempt: number,
  input: { output: TranscodeOutput; billedSeconds: number; reused: boolean; reuse?: ReuseRecord },
  now: Date,
) =>
  finish(
    companyId,
    jobId,
    'done',
    {
      from: input.reused ? ['probing'] : ['finalizing'],
      attempt,
      set: {
        output: input.output,
        reused: input.reused,
        billedSeconds: input.reused ? 0 : input.billedSeconds,
        progress: { phase: 'done', percent: 100 },
      },
      remove: ['error'],
    },
    now,
    input.reused ? 0 : input.billedSeconds,
    !input.reused && input.reuse ? [reusePut(companyId, input.reuse)] : [],
  );

/** Any unfinished state of this attempt → `failed` with an error code; clears the lease. */
export const failTranscodeJob = (
  companyId: string,
  jobId: string,
  attempt: number,
  error: { code: string; message: string },
  now: Date,
) =>
  finish(
    companyId,
    jobId,
    'failed',
    { from: UNFINISHED_STATUSES, attempt, set: { error }, remove: ['progress'] },
    now,
  );

/** Tenant cancel: from the observed unfinished state of the observed attempt → `canceled`; clears the lease. */
export const cancelTranscodeJob = (
  companyId: string,
  jobId: string,
  observed: { status: TranscodeStatus; attempt: number },
  now: Date,
) =>
  finish(companyId, jobId, 'canceled', { from: [observed.status], attempt: observed.attempt, set: {} }, now);

/** What a retry clears of the previous attempt, and what it sets: one definition for the write and the record. */
const RETRY_REMOVES = ['output', 'error', 'finishedAt', 'executionArn', 'leaseUntil'] as const;
const retryReset = (attempt: number, iso: string) => ({
  status: 'pending' as const,
  attempt: attempt + 1,
  reused: false,
  billedSeconds: 0,
  progress: { phase: 'pending' as const },
  updatedAt: iso,
  attemptStartedAt: iso,
});

/** The job as `retryTranscodeJob` leaves it. */
export const retriedJob = (job: TranscodeJobRecord, now: Date): TranscodeJobRecord => {
  const kept: Record<string, unknown> = { ...job };
  for (const name of RETRY_REMOVES) delete kept[name];
  return { ...(kept as unknown as TranscodeJobRecord), ...retryReset(job.attempt, now.toISOString()) };
};

/**
 * Tenant retry: `failed|canceled` with no lease in the future → `pending` as attempt + 1, taking a queue slot
 * (conditional on the cap) in the same transaction. Clears the previous attempt's output, error and billing.
 */
export const retryTranscodeJob = async (
  companyId: string,
  jobId: string,
  observed: { attempt: number },
  queueCap: number,
  now: Date,
): Promise<void> => {
  const iso = now.toISOString();
  const job = jobUpdate(companyId, jobId, {
    from: ['failed', 'canceled'],
    attempt: observed.attempt,
    set: { ...retryReset(observed.attempt, iso), ...unfinishedIndexKey(companyId, jobId) },
    remove: [...RETRY_REMOVES],
    condition: {
      expression: '(attribute_not_exists(leaseUntil) OR leaseUntil <= :now)',
      values: { ':now': iso },
    },
  });
  try {
    await sendTransaction(
      new TransactWriteCommand({ TransactItems: [{ Update: job }, queueUpdate(companyId, 1, queueCap)] }),
    );
  } catch (error) {
    const codes = cancellationCodes(error);
    if (codes?.[0] === 'ConditionalCheckFailed') throw new TranscodeTransitionRefusedError(jobId, 'pending');
    if (codes?.[1] === 'ConditionalCheckFailed') throw new TranscodeQueueFullError();
    throw error;
  }
};

export interface ReuseEntry {
  output: TranscodeOutput;
  sourceJobId: string;
  durationSeconds: number;
  createdAt: string;
}

export const getTranscodeReuse = async (
  companyId: string,
  preset: string,
  size: number,
  etag: string,
): Promise<ReuseEntry | undefined> => {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName(), Key: transcodeReuseKey(companyId, preset, size, etag) }),
  );
  if (!Item) return undefined;
  return {
    output: Item.output,
    sourceJobId: Item.sourceJobId,
    durationSeconds: Item.durationSeconds,
    createdAt: Item.createdAt,
  };
};

/** Unfinished jobs of every company, from the sparse index (operator sweeps and local start-up only). */
export const listUnfinishedTranscodeJobs = async (): Promise<TranscodeJobRecord[]> => {
  const jobs: TranscodeJobRecord[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await ddb.send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: TABLE_SHAPE.gsi1.indexName,
        KeyConditionExpression: 'gsi1pk = :p',
        ExpressionAttributeValues: { ':p': UNFINISHED_INDEX_PARTITION },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) jobs.push(toTranscodeJob(item));
    start = page.LastEvaluatedKey;
  } while (start);
  return jobs;
};
