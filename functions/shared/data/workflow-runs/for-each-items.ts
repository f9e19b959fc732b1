import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { StepAttempt } from '../../types/workflows';
import * as zm from '../../zod-mini';
import { ddb, isConditionalCheckFailed, queryAll, tableName } from '../client';
import { defineEntity } from '../entity';
import { partitions, sortKeys } from '../keys';
import { storedList } from '../schemas';

/**
 * The items of a run's `forEach` step, one DynamoDB item each beside the run's (`FE#<stepId>#<index>` in the
 * run's partition), so a loop of any length keeps the run item small and each result is written as it ends.
 *
 * An item moves `started` → `succeeded` | `failed`, or `started` → `waiting` (its `retry` waits for the next
 * attempt, released) → `started` again. Every move is conditional on the state it leaves: an index is claimed
 * by one runner only, and a result is recorded once, by the runner holding the claim. A claim whose runner is
 * gone (a crash) is recorded `failed` (`step_interrupted`) by the runner that takes the step over: the item is
 * never run twice. Items expire with their run.
 */
export const FOREACH_ITEM_STATUSES = ['started', 'waiting', 'succeeded', 'failed'] as const;

/** Items are kept as long as their run (`RUN_TTL_SECONDS` of `runs.ts`). */
const ITEM_TTL_SECONDS = 90 * 24 * 3600;

const forEachItemKey = (companyId: string, runId: string, stepId: string, index: number) => ({
  pk: partitions.workflowRuns(companyId, runId),
  sk: sortKeys.workflowForEachItem(stepId, index),
});

const ForEachItem = /* @__PURE__ */ defineEntity({
  name: 'workflow_foreach_item',
  key: forEachItemKey,
  get schema() {
    return zm.object({
      index: zm.number(),
      status: zm.enum(FOREACH_ITEM_STATUSES),
      startedAt: zm.string(),
      attempts: storedList<StepAttempt[]>(),
      /** Step time of the attempts so far, in milliseconds. */
      durationMs: zm.number(),
      /** `waiting`: when the next attempt may start. */
      notBefore: zm.optional(zm.string()),
      /** `succeeded` (and a `failed` item its action answered): the output as JSON text, secrets redacted. */
      output: zm.optional(zm.string()),
      error: zm.optional(zm.object({ code: zm.string(), message: zm.string() })),
    });
  },
});
export type ForEachItemRecord = zm.output<(typeof ForEachItem)['schema']>;

export interface ForEachItemAddress {
  companyId: string;
  runId: string;
  stepId: string;
}

const send = async (command: UpdateCommand): Promise<boolean> => {
  try {
    await ddb.send(command);
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
};

/** The step's items recorded so far, by index (read consistently). */
export const listForEachItems = async (at: ForEachItemAddress): Promise<Map<number, ForEachItemRecord>> => {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :items)',
    ExpressionAttributeValues: {
      ':pk': partitions.workflowRuns(at.companyId, at.runId),
      ':items': sortKeys.workflowForEachItem(at.stepId, ''),
    },
    ConsistentRead: true,
  });
  return new Map(items.map((item) => ForEachItem.decode(item)).map((r) => [r.index, r]));
};

/**
 * Claims item `index` to run it: a new one (no record yet), or one `waiting` since `waiting.notBefore`.
 * False when another runner has it.
 */
export const claimForEachItem = (
  at: ForEachItemAddress,
  index: number,
  now: Date,
  waiting?: ForEachItemRecord,
): Promise<boolean> => {
  const key = forEachItemKey(at.companyId, at.runId, at.stepId, index);
  const startedAt = now.toISOString();
  if (!waiting) {
    // An update creating the item: a run's runners update its partition and create no run there.
    return send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        ...ForEachItem.update(
          {
            set: {
              entity: ForEachItem.name,
              index,
              status: 'started',
              startedAt,
              attempts: [],
              durationMs: 0,
              ttl: Math.floor(now.getTime() / 1000) + ITEM_TTL_SECONDS,
            },
          },
          { expression: 'attribute_not_exists(pk)' },
        ),
      }),
    );
  }
  return send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      ...ForEachItem.update(
        { set: { status: 'started', startedAt }, remove: ['notBefore'] },
        {
          expression: '#status = :waiting AND #notBefore = :notBefore',
          names: { '#status': 'status', '#notBefore': 'notBefore' },
          values: { ':waiting': 'waiting', ':notBefore': waiting.notBefore },
        },
      ),
    }),
  );
};

/**
 * Records what the claimed item `index` came to: its result (`succeeded`, `failed`) or its wait for the next
 * attempt (`waiting`, releasing the claim). False when the claim was taken over meanwhile.
 */
export const recordForEachItem = (
  at: ForEachItemAddress,
  record: Omit<ForEachItemRecord, 'startedAt'>,
): Promise<boolean> =>
  send(
    new UpdateCommand({
      TableName: tableName(),
      Key: forEachItemKey(at.companyId, at.runId, at.stepId, record.index),
      ...ForEachItem.update(
        {
          set: {
            status: record.status,
            attempts: record.attempts,
            durationMs: record.durationMs,
            notBefore: record.notBefore,
            output: record.output,
            error: record.error,
          },
          remove: record.notBefore === undefined ? ['notBefore'] : [],
        },
        {
          expression: '#status = :started',
          names: { '#status': 'status' },
          values: { ':started': 'started' },
        },
      ),
    }),
  );
