import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { WorkflowDefinition, WorkflowVersion } from '../types/workflows';
import * as zm from '../zod-mini';
import { ddb, tableName } from './client';
import { defineEntity, putItem, type TransactItem } from './entity';
import { partitions, sortKeys } from './keys';
import { storedObject } from './schemas';
import { cancellationReasons, sendTransaction, transactUnlessFailed } from './transactions';
import { updateParams } from './update-expression';

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
const definitionFields = () => ({
  definitionJson: zm.optional(zm.string()),
  definition: zm.optional(storedObject<WorkflowDefinition>()),
});

/** The head item: the latest version and its definition, or a tombstone (`deleted`) keeping the counter. */
const WorkflowHeadItem = /* @__PURE__ */ defineEntity({
  name: 'workflow',
  key: headKey,
  get schema() {
    return zm.object({
      workflowId: zm.string(),
      version: zm.number(),
      createdAt: zm.string(),
      updatedAt: zm.string(),
      deleted: zm.optional(zm.boolean()),
      ...definitionFields(),
    });
  },
});

/** A saved version: immutable, read by the runs of that version. */
const WorkflowVersionItem = /* @__PURE__ */ defineEntity({
  name: 'workflow_version',
  key: versionKey,
  get schema() {
    return zm.object({
      workflowId: zm.string(),
      version: zm.number(),
      createdAt: zm.string(),
      ...definitionFields(),
    });
  },
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

export class WorkflowLimitReachedError extends Error {
  constructor(readonly limit: number) {
    super(`The company has its plan's ${limit} workflows`);
    this.name = 'WorkflowLimitReachedError';
  }
}

/**
 * The company's workflow count (`COUNT` in the `WF` partition), kept in the transactions that create and
 * delete a workflow. A company whose workflows were saved before the count existed gets it on its next
 * create, from its heads (the create then conditional on the count still being absent).
 */
/** The company's count of workflows, and a head item as stored (`definitionJson`, a tombstone's `deleted`). */
interface WorkflowCount {
  workflows: number;
}
type HeadItem = WorkflowHead & { definitionJson?: string; deleted?: boolean };

const countKey = (companyId: string) => ({ pk: workflowPartition(companyId), sk: sortKeys.workflowCount });
const COUNT_ENTITY = 'workflow_count';

const readCount = async (companyId: string): Promise<number | undefined> => {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName(), Key: countKey(companyId), ConsistentRead: true }),
  );
  const parsed = zm.object({ workflows: zm.number() }).safeParse(Item ?? {});
  return parsed.success ? parsed.data.workflows : undefined;
};

/** The transaction item that counts one more workflow, within `limit`. */
const countOneMore = async (companyId: string, limit: number): Promise<TransactItem> => {
  const count = await readCount(companyId);
  if (count === undefined) {
    const existing = (await listWorkflowHeads(companyId)).length;
    if (existing + 1 > limit) throw new WorkflowLimitReachedError(limit);
    return {
      Put: {
        TableName: tableName(),
        Item: { ...countKey(companyId), entity: COUNT_ENTITY, workflows: existing + 1 },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
  }
  if (count + 1 > limit) throw new WorkflowLimitReachedError(limit);
  return {
    Update: {
      TableName: tableName(),
      Key: countKey(companyId),
      ...updateParams<WorkflowCount>(
        { add: { workflows: 1 } },
        { expression: '#workflows < :limit', values: { ':limit': limit } },
      ),
    },
  };
};

/**
 * Saves `definition` as the next version (one transaction: the head conditional on the version read, the new
 * version, for a new workflow its place in the count, within `limit`, and `alongside`: items of other entities
 * that follow the version, such as its triggers). `check` sees the current head before anything is written
 * (the caller's `If-Match`); the head's condition makes it hold at the write.
 */
export const putWorkflowVersion = async (
  companyId: string,
  definition: WorkflowDefinition,
  now: Date,
  options: {
    limit: number;
    check?: (current: WorkflowHead | undefined) => void;
    alongside?: TransactItem[];
  },
): Promise<{ head: WorkflowHead; created: boolean }> => {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName(), Key: headKey(companyId, definition.id), ConsistentRead: true }),
  );
  const stored = Item ? WorkflowHeadItem.decode(Item) : undefined;
  options.check?.(Item ? toHead(Item) : undefined);
  const created = stored === undefined || stored.deleted === true;
  const previous = stored ? stored.version : 0;
  const version = previous + 1;
  const stamp = now.toISOString();
  const createdAt = stored && !created ? stored.createdAt : stamp;
  const head = { workflowId: definition.id, version, definition, createdAt, updatedAt: stamp };
  const definitionJson = JSON.stringify(definition);
  const count = created ? await countOneMore(companyId, options.limit) : undefined;
  try {
    await sendTransaction(
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
          ...(count ? [count] : []),
          ...(options.alongside ?? []),
        ],
      }),
    );
  } catch (error) {
    const reasons = cancellationReasons(error);
    // The count refused one more (not a first count racing another: that is a conflict, as for the head).
    if (
      count?.Update &&
      reasons?.[2]?.Code === 'ConditionalCheckFailed' &&
      reasons[0]?.Code !== 'ConditionalCheckFailed'
    )
      throw new WorkflowLimitReachedError(options.limit);
    if (reasons) throw new WorkflowVersionConflictError();
    throw error;
  }
  return { head, created };
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

/** The most versions a workflow keeps numbered (`WFV#<id>#000001` … `#999999`). */
const LAST_VERSION = 999_999;

/**
 * A page of a workflow's saved versions, oldest first, after version `after`: each `{version, createdAt}` and
 * the definition it saved.
 */
export const listWorkflowVersions = async (
  companyId: string,
  workflowId: string,
  options: { limit: number; after?: number | undefined },
): Promise<{ versions: WorkflowVersion[]; more: boolean }> => {
  const { Items = [] } = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': workflowPartition(companyId),
        ':from': sortKeys.workflowVersion(workflowId, (options.after ?? 0) + 1),
        ':to': sortKeys.workflowVersion(workflowId, LAST_VERSION),
      },
      Limit: options.limit + 1,
    }),
  );
  const versions = Items.slice(0, options.limit).map((item) => {
    const stored = WorkflowVersionItem.decode(item);
    return {
      companyId,
      workflowId,
      version: stored.version,
      definition: definitionOf(stored, `${workflowId} version ${stored.version}`),
      createdAt: stored.createdAt,
    };
  });
  return { versions, more: Items.length > options.limit };
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

/**
 * Deletes a workflow (a tombstone on its head, and one less in the count, in one transaction); false when
 * there is none. `check` sees the head first (`If-Match`); the tombstone is conditional on its version.
 * Saved versions stay for the runs that use them.
 */
export const deleteWorkflowHead = async (
  companyId: string,
  workflowId: string,
  now: Date,
  check?: (current: WorkflowHead) => void,
): Promise<boolean> => {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName(), Key: headKey(companyId, workflowId), ConsistentRead: true }),
  );
  const current = Item ? toHead(Item) : undefined;
  if (!current) return false;
  check?.(current);
  const counted = (await readCount(companyId)) !== undefined;
  const tombstone: TransactItem = {
    Update: {
      TableName: tableName(),
      Key: headKey(companyId, workflowId),
      ...updateParams<HeadItem>(
        { set: { deleted: true, updatedAt: now.toISOString() }, remove: ['definition', 'definitionJson'] },
        {
          expression: '#version = :version AND (attribute_not_exists(#deleted) OR #deleted = :false)',
          names: { '#version': 'version', '#deleted': 'deleted' },
          values: { ':false': false, ':version': current.version },
        },
      ),
    },
  };
  const uncount: TransactItem = {
    Update: {
      TableName: tableName(),
      Key: countKey(companyId),
      ...updateParams<WorkflowCount>(
        { add: { workflows: -1 } },
        { expression: '#workflows > :zero', values: { ':zero': 0 } },
      ),
    },
  };
  if (await transactUnlessFailed(counted ? [tombstone, uncount] : [tombstone], 0)) return true;
  // Deleted or saved again meanwhile: a repeat decides.
  throw new WorkflowVersionConflictError();
};
