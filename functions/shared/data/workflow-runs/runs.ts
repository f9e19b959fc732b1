import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { decodeScopeSet, encodeScopeSet } from '../../types/scopes';
import type { RunTrigger } from '../../types/workflow-triggers';
import {
  type FailedStep,
  type FinalRunStatus,
  type StepAttempt,
  type StepLog,
  WORKFLOW_RUN_STATUSES,
  type WorkflowRunRecord,
} from '../../types/workflows';
import * as zm from '../../zod-mini';
import { ddb, tableName } from '../client';
import { defineEntity, putItem, type TransactItem } from '../entity';
import { indexPartitions, partitions, sortKeys, unfinishedSortKey } from '../keys';
import { packedBytes, packJsonText, packJsonValue, readJsonText, readPacked } from '../packed-json';
import { objectReference, storedList } from '../schemas';
import { INDEX_ATTRIBUTES, listSparsePartition, sparseIndexKey } from '../sparse-index';
import { cancellationReasons, sendTransaction } from '../transactions';
import { addComputeMsItems, addToMeterItems } from '../usage-meters';
import { runEntryPut } from './entries';
import { decodeOutputs, encodeOutputs, storedOutputs } from './outputs';

/**
 * Workflow runs: one item per run (`CO#<companyId>#WFRUN#<runId>`), the read model of sync and async runs.
 * Every write after creation is conditional on `status = running` (and on the step cursor), so a step is
 * recorded once and a run moves to a final state once. Creation and the `workflow_runs` meter are one
 * transaction (idempotent by run id: the meter is never counted twice for one run, nor past the allowance);
 * the move to the final state and the run's compute time are one transaction too.
 *
 * A running run is also in the sparse `work` index partition `workpk = WFRUN#UNFINISHED`, from its creation to the
 * move to its final state (which removes it), so what a crash interrupted is found without reading history.
 */
export const workflowRunKey = (companyId: string, runId: string) => ({
  pk: partitions.workflowRuns(companyId, runId),
  sk: sortKeys.workflowRun,
});

/** The sparse `work` partition of running runs (`sparse-index.ts`). */
export const UNFINISHED_RUNS_PARTITION = indexPartitions.unfinishedWorkflowRuns();
export const unfinishedRunIndexKey = (companyId: string, runId: string) =>
  sparseIndexKey(UNFINISHED_RUNS_PARTITION, unfinishedSortKey(companyId, runId));

/** Runs are kept 90 days. */
const RUN_TTL_SECONDS = 90 * 24 * 3600;

export class WorkflowRunQuotaError extends Error {
  constructor() {
    super('Monthly allowance of workflow_runs reached');
    this.name = 'WorkflowRunQuotaError';
  }
}

export class WorkflowRunExistsError extends Error {
  constructor(runId: string) {
    super(`Run ${runId} exists already`);
    this.name = 'WorkflowRunExistsError';
  }
}

export class WorkflowRunMovedError extends Error {
  constructor(runId: string) {
    super(`Run ${runId} is not where this write expected it`);
    this.name = 'WorkflowRunMovedError';
  }
}

/**
 * The run item as stored: `input`, `result` and `trigger` as JSON text, `outputs` encoded (absent once
 * dropped); the step logs and failed steps are the runner's shapes (`types/workflows.ts`), checked here as
 * lists. `input`, `result`, `trigger`, `logs` and `outputs` are packed (binary) once long
 * (`packed-json.ts`: the run of a few steps stays within 1 KB); items written before hold them plain.
 */
export const WorkflowRun = /* @__PURE__ */ defineEntity({
  name: 'workflow_run',
  key: workflowRunKey,
  get schema() {
    return zm.object({
      companyId: zm.string(),
      runId: zm.string(),
      workflowId: zm.string(),
      version: zm.number(),
      mode: zm.enum(['sync', 'async']),
      status: zm.enum(WORKFLOW_RUN_STATUSES),
      includeStepOutputs: zm.boolean(),
      input: zm.optional(zm.union([zm.string(), packedBytes()])),
      /** A scope set (`encodeScopeSet`); runs stored before it hold the names. */
      callerScopes: zm.union([zm.number(), zm.array(zm.string())]),
      caller: zm.optional(
        zm.object({
          source: zm.string(),
          tokenId: zm.optional(zm.string()),
          expiresAt: zm.optional(zm.number()),
          ips: zm.optional(zm.array(zm.string())),
          ancestors: zm.optional(zm.array(zm.string())),
        }),
      ),
      hop: zm.optional(zm.number()),
      mintsNoToken: zm.optional(zm.literal(true)),
      computeBudgetMs: zm.optional(zm.number()),
      cursor: zm.number(),
      current: zm.optional(zm.object({ index: zm.number(), startedAt: zm.string() })),
      turn: zm.optional(zm.number()),
      pendingAttempts: zm.optional(
        zm.object({ index: zm.number(), notBefore: zm.string(), attempts: storedList<StepAttempt[]>() }),
      ),
      logs: zm.union([storedList<StepLog[]>(), packedBytes()]),
      outputs: zm.optional(zm.union([storedOutputs(), packedBytes()])),
      files: zm.array(objectReference()),
      result: zm.optional(zm.unknown()),
      error: zm.optional(zm.object({ code: zm.string(), message: zm.optional(zm.string()) })),
      failedSteps: zm.optional(storedList<FailedStep[]>()),
      executionTimeMs: zm.number(),
      createdAt: zm.string(),
      updatedAt: zm.string(),
      finishedAt: zm.optional(zm.string()),
      handedOffAt: zm.optional(zm.string()),
      /** What started a run not started through the API (`RunTrigger`), as JSON text (an event's data is tenant JSON). */
      trigger: zm.optional(zm.union([zm.string(), packedBytes()])),
    });
  },
  // In the unfinished partition while it runs (its move to a final state removes the attributes).
  index: (run) => (run.status === 'running' ? unfinishedRunIndexKey(run.companyId, run.runId) : undefined),
});

const toRun = (item: Record<string, unknown>): WorkflowRunRecord => {
  const { input, outputs, result, trigger, callerScopes, logs, ...run } = WorkflowRun.decode(item);
  return {
    ...run,
    callerScopes: typeof callerScopes === 'number' ? decodeScopeSet(callerScopes) : callerScopes,
    ...(trigger === undefined ? {} : { trigger: readJsonText(trigger) as RunTrigger }),
    input: readJsonText(input ?? '{}') as Record<string, unknown>,
    logs: readPacked(logs),
    outputs: decodeOutputs(outputs === undefined ? undefined : readPacked(outputs)),
    ...(typeof result === 'string' || result instanceof Uint8Array ? { result: readJsonText(result) } : {}),
  };
};

/** The run's item, written once (a second write of the same run id is refused: `WorkflowRunExistsError`). */
const runPut = (run: WorkflowRunRecord, now: Date): TransactItem =>
  putItem(
    WorkflowRun,
    workflowRunKey(run.companyId, run.runId),
    {
      ...run,
      callerScopes: encodeScopeSet(run.callerScopes),
      input: packJsonText(run.input),
      logs: packJsonValue(run.logs),
      outputs: packJsonValue(encodeOutputs(run.outputs)),
      result: run.result === undefined ? undefined : packJsonText(run.result),
      trigger: run.trigger === undefined ? undefined : packJsonText(run.trigger),
    },
    {
      extra: { ttl: Math.floor(now.getTime() / 1000) + RUN_TTL_SECONDS },
      condition: { expression: 'attribute_not_exists(pk)' },
    },
  );

/**
 * Creates the run and counts it in `workflow_runs`, only while the month stays within `limit`. A run id
 * that exists already (a trigger handled twice names its run the same) is `WorkflowRunExistsError`.
 */
export const createWorkflowRun = async (run: WorkflowRunRecord, limit: number, now: Date): Promise<void> => {
  try {
    await sendTransaction(
      new TransactWriteCommand({
        TransactItems: [
          runPut(run, now),
          ...(await addToMeterItems(run.companyId, 'workflow_runs', 1, now, limit)),
          // A sync run is listed when it finishes or is handed to the engine (`entries.ts`).
          ...(run.mode === 'async' ? [runEntryPut(run)] : []),
        ],
      }),
    );
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (reasons?.[0]?.Code === 'ConditionalCheckFailed') throw new WorkflowRunExistsError(run.runId);
    if (reasons?.[1]?.Code === 'ConditionalCheckFailed') throw new WorkflowRunQuotaError();
    throw error;
  }
};

/**
 * Records a run that was refused before it started (a triggered run over the monthly allowance): final
 * from the start, not counted, with `also` (its `workflow_run.finished` event) in the same transaction.
 */
export const createRefusedWorkflowRun = async (
  run: WorkflowRunRecord,
  now: Date,
  also: readonly TransactItem[] = [],
): Promise<void> => {
  try {
    await sendTransaction(
      new TransactWriteCommand({ TransactItems: [runPut(run, now), runEntryPut(run), ...also] }),
    );
  } catch (error) {
    if (cancellationReasons(error)?.[0]?.Code === 'ConditionalCheckFailed')
      throw new WorkflowRunExistsError(run.runId);
    throw error;
  }
};

export const getWorkflowRunRecord = async (
  companyId: string,
  runId: string,
  options: { consistent?: boolean } = {},
): Promise<WorkflowRunRecord | undefined> => {
  const { Item } = await ddb.send(
    new GetCommand({
      TableName: tableName(),
      Key: workflowRunKey(companyId, runId),
      ConsistentRead: options.consistent,
    }),
  );
  return Item ? toRun(Item) : undefined;
};

/** The run's status alone, read consistently (a sync run looks before each step whether it was canceled). */
export const getWorkflowRunStatus = async (
  companyId: string,
  runId: string,
): Promise<WorkflowRunRecord['status'] | undefined> => {
  const { Item } = await ddb.send(
    new GetCommand({
      TableName: tableName(),
      Key: workflowRunKey(companyId, runId),
      ConsistentRead: true,
      ProjectionExpression: '#status',
      ExpressionAttributeNames: { '#status': 'status' },
    }),
  );
  const parsed = zm.enum(WORKFLOW_RUN_STATUSES).safeParse(Item?.status);
  return parsed.success ? parsed.data : undefined;
};

/** Running runs of every company, from the sparse index partition (never a request path). */
export const listUnfinishedWorkflowRuns = async (): Promise<WorkflowRunRecord[]> =>
  (await listSparsePartition(UNFINISHED_RUNS_PARTITION)).map(toRun);

/** The progress a runner records: everything up to step `cursor`. */
export type WorkflowRunProgress = Pick<
  WorkflowRunRecord,
  'cursor' | 'logs' | 'outputs' | 'files' | 'executionTimeMs'
>;

export interface WorkflowRunOutcome extends WorkflowRunProgress {
  status: FinalRunStatus;
  result?: unknown;
  error?: { code: string; message?: string };
  failedSteps: FailedStep[];
  /** Drop the step outputs (the run was not asked to keep them). */
  dropOutputs: boolean;
}

/**
 * The items of the move to a final state: the run (conditional on `running`) and its compute time in the
 * `workflows` category. Kept as transaction items so other writes of the same move join the transaction.
 */
export const finishWorkflowRunItems = (
  run: Pick<WorkflowRunRecord, 'companyId' | 'runId' | 'workflowId' | 'trigger' | 'createdAt'>,
  outcome: WorkflowRunOutcome,
  now: Date,
): TransactItem[] => {
  const stamp = now.toISOString();
  const update = WorkflowRun.update(
    {
      set: {
        status: outcome.status,
        cursor: outcome.cursor,
        logs: packJsonValue(outcome.logs),
        files: outcome.files,
        executionTimeMs: outcome.executionTimeMs,
        failedSteps: outcome.failedSteps,
        updatedAt: stamp,
        finishedAt: stamp,
        ...(outcome.result === undefined ? {} : { result: packJsonText(outcome.result) }),
        ...(outcome.error ? { error: outcome.error } : {}),
        ...(outcome.dropOutputs ? {} : { outputs: packJsonValue(encodeOutputs(outcome.outputs)) }),
      },
      remove: [
        'current',
        'pendingAttempts',
        ...INDEX_ATTRIBUTES,
        ...(outcome.dropOutputs ? (['outputs'] as const) : []),
      ],
    },
    { expression: '#status = :running', values: { ':running': 'running' } },
  );
  return [
    {
      Update: {
        TableName: tableName(),
        Key: workflowRunKey(run.companyId, run.runId),
        ...update,
      },
    },
    ...addComputeMsItems(run.companyId, 'workflows', Math.max(0, Math.round(outcome.executionTimeMs)), now),
    // The whole entry: a sync run has none before it finishes (`entries.ts`).
    runEntryPut({ ...run, status: outcome.status, finishedAt: stamp }),
  ];
};

/**
 * Moves the run to its final state, once: TransactWriteItems of `finishWorkflowRunItems` plus `also` (the
 * run's `workflow_run.finished` event), so the event exists if and only if the move happened.
 */
export const finishWorkflowRun = async (
  run: Pick<WorkflowRunRecord, 'companyId' | 'runId' | 'workflowId' | 'trigger' | 'createdAt'>,
  outcome: WorkflowRunOutcome,
  now: Date,
  also: readonly TransactItem[] = [],
): Promise<void> => {
  try {
    await sendTransaction(
      new TransactWriteCommand({ TransactItems: [...finishWorkflowRunItems(run, outcome, now), ...also] }),
    );
  } catch (error) {
    if (cancellationReasons(error)?.[0]?.Code === 'ConditionalCheckFailed')
      throw new WorkflowRunMovedError(run.runId);
    throw error;
  }
};
