import { BatchGetCommand, DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as zm from '../zod-mini';
import { ddb, isConditionalCheckFailed, queryAll, tableName } from './client';
import { defineEntity } from './entity';
import { partitions } from './keys';

/**
 * A company's workflow secrets (`PUT /v1/workflows/secrets/{name}`), one item per name in the company's
 * `CO#<id>#WFSECRET` partition. The value is held only encrypted (`sealed`: AES-256-GCM under a data key of
 * its own, `wrappedKey`: that key wrapped by the platform's key, `domain/workflows/vault.ts`); no read of this
 * module's callers ever answers it. A write replaces the item whole, conditional on the version it read.
 */
export const workflowSecretKey = (companyId: string, name: string) => ({
  pk: partitions.workflowSecrets(companyId),
  sk: name,
});

const Secret = /* @__PURE__ */ defineEntity({
  name: 'workflow_secret',
  key: workflowSecretKey,
  get schema() {
    return zm.object({
      name: zm.string(),
      description: zm.string(),
      sealed: zm.string(),
      wrappedKey: zm.string(),
      version: zm.number(),
      createdAt: zm.string(),
      updatedAt: zm.string(),
    });
  },
});

export type StoredWorkflowSecret = zm.output<typeof Secret.schema>;

/** The secret changed (or was created or deleted) since it was read: nothing was written. */
export class SecretChangedError extends Error {
  constructor() {
    super('the workflow secret changed since it was read');
    this.name = 'SecretChangedError';
  }
}

const unchangedSince = (readVersion: number | undefined) =>
  readVersion === undefined
    ? { ConditionExpression: 'attribute_not_exists(pk)' }
    : {
        ConditionExpression: '#version = :was',
        ExpressionAttributeNames: { '#version': 'version' },
        ExpressionAttributeValues: { ':was': readVersion },
      };

/** Writes the secret whole, while the stored one still has `readVersion` (or, undefined, none exists). */
export const writeWorkflowSecret = async (
  companyId: string,
  secret: StoredWorkflowSecret,
  readVersion: number | undefined,
): Promise<void> => {
  try {
    await ddb.send(
      new PutCommand({
        TableName: tableName(),
        Item: Secret.item(workflowSecretKey(companyId, secret.name), secret),
        ...unchangedSince(readVersion),
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new SecretChangedError();
    throw error;
  }
};

export const getWorkflowSecret = async (
  companyId: string,
  name: string,
): Promise<StoredWorkflowSecret | undefined> => {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName(), Key: workflowSecretKey(companyId, name), ConsistentRead: true }),
  );
  return Item ? Secret.decode(Item) : undefined;
};

/** The named secrets that exist (at most 100 names, one batch read; a run references few). */
export const getWorkflowSecrets = async (
  companyId: string,
  names: readonly string[],
): Promise<StoredWorkflowSecret[]> => {
  if (names.length === 0) return [];
  const table = tableName();
  const { Responses } = await ddb.send(
    new BatchGetCommand({
      RequestItems: { [table]: { Keys: names.map((name) => workflowSecretKey(companyId, name)) } },
    }),
  );
  return (Responses?.[table] ?? []).map((item) => Secret.decode(item));
};

/** Every secret of the company (a company holds at most `MAX_WORKFLOW_SECRETS`), by name. */
export const listWorkflowSecrets = async (companyId: string): Promise<StoredWorkflowSecret[]> =>
  (
    await queryAll({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': partitions.workflowSecrets(companyId) },
    })
  ).map((item) => Secret.decode(item));

/** How many secrets the company holds, counted up to `max + 1` (enough to refuse one more). */
export const countWorkflowSecrets = async (companyId: string, max: number): Promise<number> => {
  const { Count } = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': partitions.workflowSecrets(companyId) },
      Select: 'COUNT',
      Limit: max + 1,
    }),
  );
  return Count ?? 0;
};

/** Deletes the secret read (its `version`); `SecretChangedError` when it changed or is gone. */
export const deleteWorkflowSecret = async (companyId: string, name: string, readVersion: number) => {
  try {
    await ddb.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: workflowSecretKey(companyId, name),
        ...unchangedSince(readVersion),
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new SecretChangedError();
    throw error;
  }
};
