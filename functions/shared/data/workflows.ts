import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { WorkflowDefinition, WorkflowVersion } from '../types/workflows';
import * as zm from '../zod-mini';
import { ddb, isConditionalCheckFailed, tableName } from './client';
import { defineEntity, putItem, type TransactItem } from './entity';
import { partitions, sortKeys } from './keys';
import { storedObject } from './schemas';
import { cancellationReasons } from './transactions';

/**
 * Company workflow definitions, in the company's `WF` partition: the head item `WF#<id>` (latest version,
 * its definition, a tombstone once deleted: the version counter survives so a re-created workflow never
 * reuses a version number) and one immutable item per saved version `WFV#<id>#<version>`, which runs read.
 */
export const workflowPartition = partitions.workflows;
const headKey = (companyId: string, workflowId: string) => ({
  pk: workflowPartition(companyId),
  sk: sortKeys.workflowHead(workflowId),
});
const versionKey = (companyId: string, workflowId: string, version: number) => ({
  pk: workflowPartition(companyId),
  sk: sortKeys.workflowVersion(workflowId, version),
});

export interface WorkflowHead {
  workflowId: string;
  version: number;
  definition: WorkflowDefinition;
  createdAt: string;
  updatedAt: string;
}

/**
 * A definition is tenant JSON (its `with`, `return` and `input` hold the tenant's own member names, at any
 * depth): it is stored as JSON text (`definitionJson`), so no member name or nesting reaches the marshaller.
 * Items written before that hold it as a map (`definition`), still read.
 */
const definitionFields = {
  definitionJson: zm.optional(zm.string()),
  definition: zm.optional(storedObject<WorkflowDefinition>()),
};

/** The head item: the latest version and its definition, or a tombstone (`deleted`) keeping the counter. */
const WorkflowHeadItem = defineEntity({
  name: 'workflow',
  key: headKey,
  schema: zm.object({
    workflowId: zm.string(),
    version: zm.number(),
    createdAt: zm.string(),
    updatedAt: zm.string(),
    deleted: zm.optional(zm.boolean()),
    ...definitionFields,
  }),
});

/** A saved version: immutable, read by the runs of that version. */
const WorkflowVersionItem = defineEntity({
  name: 'workflow_version',
  key: versionKey,
  schema: zm.object({
    workflowId: zm.string(),
    version: zm.number(),
    createdAt: zm.string(),
    ...definitionFields,
  }),
});

const definitionOf = (
  item: { definitionJson?: string | undefined; definition?: WorkflowDefinition | undefined },
  key: string,
): WorkflowDefinition => {
  if (item.definitionJson !== undefined) return JSON.parse(item.definitionJson) as WorkflowDefinition;
  if (item.definition !== undefined) return item.definition;
  throw new Error(`stored workflow ${key} has no definition`);
};

const toHead = (item: Record<string, unknown>): WorkflowHead | undefined => {
  const head = WorkflowHeadItem.decode(item);
  return head.deleted === true
    ? undefined
    : {
        workflowId: head.workflowId,
        version: head.version,
        definition: definitionOf(head, head.workflowId),
        createdAt: head.createdAt,
        updatedAt: head.updatedAt,
      };
};

export class WorkflowVersionConflictError extends Error {
  constructor() {
    super('The workflow was saved concurrently');
    this.name = 'WorkflowVersionConflictError';
  }
}

/**
 * Saves `definition` as the next version (one transaction: head conditional on the version read, new
 * version, and `alongside`: items of other entities that follow the version, such as its triggers).
 */
export const putWorkflowVersion = async (
  companyId: string,
  definition: WorkflowDefinition,
  now: Date,
  alongside: TransactItem[] = [],
): Promise<WorkflowHead> => {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName(), Key: headKey(companyId, definition.id), ConsistentRead: true }),
  );
  const stored = Item ? WorkflowHeadItem.decode(Item) : undefined;
  const previous = stored ? stored.version : 0;
  const version = previous + 1;
  const stamp = now.toISOString();
  const createdAt = stored && stored.deleted !== true ? stored.createdAt : stamp;
  const head = { workflowId: definition.id, version, definition, createdAt, updatedAt: stamp };
  const definitionJson = JSON.stringify(definition);
  try {
    await ddb.send(
      new TransactWriteCommand({
        TransactItems: [
          putItem(
            WorkflowHeadItem,
            headKey(companyId, definition.id),
            { workflowId: head.workflowId, version, definitionJson, createdAt, updatedAt: stamp },
            {
              condition: stored
                ? { expression: 'version = :previous', values: { ':previous': previous } }
                : { expression: 'attribute_not_exists(pk)' },
            },
          ),
          putItem(
            WorkflowVersionItem,
            versionKey(companyId, definition.id, version),
            { workflowId: definition.id, version, definitionJson, createdAt: stamp },
            { condition: { expression: 'attribute_not_exists(pk)' } },
          ),
          ...alongside,
        ],
      }),
    );
  } catch (error) {
    if (cancellationReasons(error)) throw new WorkflowVersionConflictError();
    throw error;
  }
  return head;
};

export const getWorkflowHead = async (
  companyId: string,
  workflowId: string,
): Promise<WorkflowHead | undefined> => {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName(), Key: headKey(companyId, workflowId) }),
  );
  return Item ? toHead(Item) : undefined;
};

export const getWorkflowVersion = async (
  companyId: string,
  workflowId: string,
  version: number,
): Promise<WorkflowVersion | undefined> => {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName(), Key: versionKey(companyId, workflowId, version) }),
  );
  if (!Item) return undefined;
  const stored = WorkflowVersionItem.decode(Item);
  return {
    companyId,
    workflowId,
    version,
    definition: definitionOf(stored, `${workflowId} version ${version}`),
    createdAt: stored.createdAt,
  };
};

/** The company's workflows (at most a few hundred: one page of heads). */
export const listWorkflowHeads = async (companyId: string): Promise<WorkflowHead[]> => {
  const heads: WorkflowHead[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await ddb.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :head)',
        ExpressionAttributeValues: {
          ':pk': workflowPartition(companyId),
          ':head': sortKeys.workflowHead(''),
        },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      const head = toHead(item);
      if (head) heads.push(head);
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return heads;
};

/** Deletes a workflow (a tombstone on its head); false when there is none. Saved versions stay for its runs. */
export const deleteWorkflowHead = async (
  companyId: string,
  workflowId: string,
  now: Date,
): Promise<boolean> => {
  try {
    await ddb.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: headKey(companyId, workflowId),
        UpdateExpression: 'SET #deleted = :true, updatedAt = :now REMOVE #definition, definitionJson',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#deleted) OR #deleted = :false)',
        ExpressionAttributeNames: { '#deleted': 'deleted', '#definition': 'definition' },
        ExpressionAttributeValues: { ':true': true, ':false': false, ':now': now.toISOString() },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
};
