import { DeleteCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { lazy } from '../lazy';
import type { WorkflowDefinition } from '../types/workflows';
import * as zm from '../zod-mini';
import { ddb, tableName } from './client';
import { decodeItem, type TransactItem } from './entity';
import { partitions, sortKeys } from './keys';
import { ifAbsent, updateParams } from './update-expression';

/**
 * The triggers of a company's workflows: one small item per workflow whose definition has `on`
 * (`WFTRIG#<workflowId>` in the definitions' partition), written in the transaction that saves the version
 * and removed when a version without `on` is saved or the workflow is deleted. The event
 * dispatcher reads them with one Query per event (`listEventTriggers`), never the definitions themselves.
 *
 * `scopes` bound what a triggered run may do (the credential that saved the definition: an operator's
 * save holds every scope); `since` is when the workflow first subscribed (a workflow is started only by
 * events raised from then on, however late the event is dispatched).
 */
const TRIGGER_ENTITY = 'workflow_trigger';

const triggerKey = (companyId: string, workflowId: string) => ({
  pk: partitions.workflows(companyId),
  sk: sortKeys.workflowTrigger(workflowId),
});

const triggerSchema = /* @__PURE__ */ lazy(() =>
  zm.object({
    workflowId: zm.string(),
    events: zm.array(zm.string()),
    dynadataTypes: zm.optional(zm.array(zm.string())),
    schedule: zm.optional(zm.string()),
    scopes: zm.array(zm.string()),
    since: zm.string(),
  }),
);
export type WorkflowTrigger = zm.output<ReturnType<typeof triggerSchema>>;

/** The transaction item that keeps a workflow's trigger item in step with the version being saved. */
export const triggerItemOfVersion = (
  companyId: string,
  definition: Pick<WorkflowDefinition, 'id' | 'on'>,
  scopes: readonly string[],
  now: Date,
): TransactItem => {
  const key = triggerKey(companyId, definition.id);
  const events = definition.on?.events ?? [];
  const schedule = definition.on?.schedule;
  const dynadataTypes = definition.on?.dynadataTypes;
  if (events.length === 0 && schedule === undefined) return { Delete: { TableName: tableName(), Key: key } };
  return {
    Update: {
      TableName: tableName(),
      Key: key,
      ...updateParams<WorkflowTrigger & { entity: string }>({
        set: {
          entity: TRIGGER_ENTITY,
          workflowId: definition.id,
          events: [...events],
          scopes: [...scopes],
          since: ifAbsent(now.toISOString()),
          ...(schedule === undefined ? {} : { schedule }),
          ...(dynadataTypes === undefined ? {} : { dynadataTypes: [...dynadataTypes] }),
        },
        remove: [
          ...(schedule === undefined ? (['schedule'] as const) : []),
          ...(dynadataTypes === undefined ? (['dynadataTypes'] as const) : []),
        ],
      }),
    },
  };
};

/** Removes a deleted workflow's trigger item (none is nothing to do). */
export const deleteWorkflowTrigger = async (companyId: string, workflowId: string): Promise<void> => {
  await ddb.send(new DeleteCommand({ TableName: tableName(), Key: triggerKey(companyId, workflowId) }));
};

/** A workflow's triggers, or undefined when its definition has none. */
export const getWorkflowTrigger = async (
  companyId: string,
  workflowId: string,
): Promise<WorkflowTrigger | undefined> => {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName(), Key: triggerKey(companyId, workflowId) }),
  );
  return Item ? decodeItem(TRIGGER_ENTITY, triggerSchema(), Item) : undefined;
};

/** The company's workflows started by events of `type` (one Query of their trigger items). */
export const listEventTriggers = async (companyId: string, type: string): Promise<WorkflowTrigger[]> => {
  const triggers: WorkflowTrigger[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await ddb.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :triggers)',
        ExpressionAttributeValues: {
          ':pk': partitions.workflows(companyId),
          ':triggers': sortKeys.workflowTrigger(''),
        },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) triggers.push(decodeItem(TRIGGER_ENTITY, triggerSchema(), item));
    start = page.LastEvaluatedKey;
  } while (start);
  return triggers.filter((t) => t.events.includes(type));
};
