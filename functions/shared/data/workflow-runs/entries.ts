import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { lazy } from '../../lazy';
import { RUN_TRIGGER_TYPES } from '../../types/workflow-triggers';
import { WORKFLOW_RUN_STATUSES, type WorkflowRunRecord } from '../../types/workflows';
import * as zm from '../../zod-mini';
import { ddb, isConditionalCheckFailed, tableName } from '../client';
import { decodeItem, type TransactItem } from '../entity';
import { sortKeys, workflowRunList } from '../keys';

/**
 * The run list of a workflow (`GET /v1/workflows/{id}/runs`): one small entry per run in the workflow's run list
 * partition (`workflowRunList`), put whole in the transaction that finishes the run, so the list never shows a
 * run that does not exist nor a status the run does not have. An async run's entry is also put by the
 * transaction that creates it (it is listed `running` while the engine runs it); a sync run's only when it
 * finishes or is handed to the engine (`runEntryPut` after its progress is saved): a sync run in progress,
 * at most the sync deadline, is not listed yet (decision 0058). Run ids are ULIDs, so a backwards Query is
 * newest first; a page costs one Query whatever page it is. Entries expire with their run (the run's
 * creation time plus the run's time to live). Runs created before the list existed have no entry.
 */
const RUN_ENTRY_ENTITY = 'workflow_run_entry';
/** Entries live as long as their run (`RUN_TTL_SECONDS` of `workflow-runs.ts`: 30 days). */
const ENTRY_TTL_SECONDS = 30 * 24 * 3600;

const entryKey = (companyId: string, workflowId: string, runId: string) => ({
  pk: workflowRunList(companyId, workflowId),
  sk: sortKeys.workflowRunEntry(runId),
});

const entrySchema = /* @__PURE__ */ lazy(() =>
  zm.object({
    runId: zm.string(),
    status: zm.enum(WORKFLOW_RUN_STATUSES),
    trigger: zm.enum(RUN_TRIGGER_TYPES),
    startedAt: zm.string(),
    finishedAt: zm.nullable(zm.string()),
  }),
);
export type WorkflowRunEntry = zm.output<ReturnType<typeof entrySchema>>;

type EntryRun = Pick<
  WorkflowRunRecord,
  'companyId' | 'workflowId' | 'runId' | 'status' | 'trigger' | 'createdAt' | 'finishedAt'
>;

/** The whole entry of `run` as it stands, expiring with the run (`ENTRY_TTL_SECONDS` after its creation). */
const entryItem = (run: EntryRun) => ({
  ...entryKey(run.companyId, run.workflowId, run.runId),
  entity: RUN_ENTRY_ENTITY,
  runId: run.runId,
  status: run.status,
  trigger: run.trigger?.type ?? 'api',
  startedAt: run.createdAt,
  finishedAt: run.finishedAt ?? null,
  ttl: Math.floor(Date.parse(run.createdAt) / 1000) + ENTRY_TTL_SECONDS,
});

/** The transaction item that puts the whole entry of `run`. */
export const runEntryPut = (run: EntryRun): TransactItem => ({
  Put: { TableName: tableName(), Item: entryItem(run) },
});

/**
 * Lists a sync run handed to the engine as `running`, unless its entry exists already: a cancel or a failure
 * that finished the run in the meantime put its final entry, which stays.
 */
export const listHandedOffRun = async (run: EntryRun): Promise<void> => {
  try {
    await ddb.send(
      new PutCommand({
        TableName: tableName(),
        Item: entryItem(run),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
};

/** Entries a filtered page reads at most: a page costs a bounded read whatever the filter matches. */
const FILTERED_READ_BUDGET = 1000;

/**
 * A page of entries, newest first; with `status`, only runs with that status (a page may then end early,
 * with a `nextCursor`, when the read budget is spent: the next page goes on from there).
 */
export const listRunEntries = async (
  companyId: string,
  workflowId: string,
  request: { limit: number; cursor?: string | undefined; status?: WorkflowRunRecord['status'] | undefined },
): Promise<{ runs: WorkflowRunEntry[]; nextCursor: string | null }> => {
  const runs: WorkflowRunEntry[] = [];
  let start: Record<string, unknown> | undefined =
    request.cursor === undefined ? undefined : entryKey(companyId, workflowId, request.cursor);
  let read = 0;
  for (;;) {
    const { Items = [], LastEvaluatedKey } = await ddb.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :runs)',
        ExpressionAttributeValues: {
          ':pk': workflowRunList(companyId, workflowId),
          ':runs': sortKeys.workflowRunEntry(''),
          ...(request.status ? { ':status': request.status } : {}),
        },
        ...(request.status
          ? { FilterExpression: '#status = :status', ExpressionAttributeNames: { '#status': 'status' } }
          : {}),
        ScanIndexForward: false,
        Limit: request.status ? Math.min(FILTERED_READ_BUDGET - read, 100) : request.limit + 1,
        ...(start === undefined ? {} : { ExclusiveStartKey: start }),
      }),
    );
    read += request.status ? Math.min(FILTERED_READ_BUDGET - read, 100) : 0;
    for (const item of Items) runs.push(decodeItem(RUN_ENTRY_ENTITY, entrySchema(), item));
    if (runs.length > request.limit) {
      const page = runs.slice(0, request.limit);
      return { runs: page, nextCursor: page.at(-1)?.runId ?? null };
    }
    if (!LastEvaluatedKey || !request.status) return { runs, nextCursor: null };
    if (read >= FILTERED_READ_BUDGET) {
      const last = zm.object({ sk: zm.string() }).parse(LastEvaluatedKey).sk;
      return { runs, nextCursor: last.slice(sortKeys.workflowRunEntry('').length) };
    }
    start = LastEvaluatedKey;
  }
};
