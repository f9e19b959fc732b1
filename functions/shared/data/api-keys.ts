import { createHash, randomBytes } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { newKeyId } from '../ids';
import { lazy } from '../lazy';
import { MAX_ACTIVE_API_KEYS } from '../types/api-keys';
import { SCOPES, type Scope } from '../types/scopes';
import * as zm from '../zod-mini';
import { ddb, isConditionalCheckFailed, queryAll, tableName } from './client';
import { revocationPutItem } from './credentials';
import { decodeItem, defineEntity } from './entity';
import { indexPartitions, partitions, sortKeys } from './keys';
import { TABLE_SHAPE } from './table';
import { cancellationReasons } from './transactions';
import { updateParams } from './update-expression';

/**
 * API keys are looked up by the SHA-256 of the secret, so the lookup item is global (`APIKEY#<hash>`); the
 * company's list of keys is the GSI partition `CO#<companyId>#APIKEYS`, oldest first. The secret itself is
 * never stored. The number of the company's active keys (`KEYCOUNT` in its credentials partition) is written
 * in the transaction that creates or revokes one, so the limit holds under concurrent creations.
 */
export const apiKeyKey = (hash: string) => ({ pk: partitions.apiKeys(hash), sk: sortKeys.apiKey });
export const apiKeyListKey = (companyId: string, createdAt: string, keyId: string) => ({
  gsi1pk: indexPartitions.apiKeyList(companyId),
  gsi1sk: `${createdAt}#${keyId}`,
});

export const API_KEY_PREFIX = 'sk-';
/** `sk-` then 43 base64url characters (32 random bytes). */
export const API_KEY_PATTERN = /^sk-[A-Za-z0-9_-]{43}$/;

export interface ApiKeyRecord {
  keyId: string;
  companyId: string;
  name: string;
  scopes: Scope[];
  createdAt: string;
  revokedAt?: string;
  /** First characters of the secret, to help owners recognise a key; never enough to use it. */
  hint: string;
  /** After this instant the key is refused (absent: it does not expire). */
  expiresAt?: string;
  /** The addresses and CIDR blocks the key is accepted from (absent: any). */
  ips?: string[];
  /** When the key last authenticated a request, to within `LAST_USED_RESOLUTION_MS`. */
  lastUsedAt?: string;
  /** The key that created this one (`keyId`), or `operator`. */
  createdBy?: string;
}

/** The lookup item of a key (`keyHash` is read only by revocation; the record leaves it out). */
export const ApiKey = /* @__PURE__ */ defineEntity({
  name: 'api_key',
  key: apiKeyKey,
  get schema() {
    return zm.object({
      keyId: zm.string(),
      companyId: zm.string(),
      name: zm.string(),
      scopes: zm.array(zm.enum(SCOPES)),
      createdAt: zm.string(),
      revokedAt: zm.optional(zm.string()),
      hint: zm.string(),
      expiresAt: zm.optional(zm.string()),
      ips: zm.optional(zm.array(zm.string())),
      lastUsedAt: zm.optional(zm.string()),
      createdBy: zm.optional(zm.string()),
    }) satisfies zm.ZodMiniType<ApiKeyRecord>;
  },
  // The company's list of its keys, oldest first.
  index: (key) => apiKeyListKey(key.companyId, key.createdAt, key.keyId),
});

export const hashApiKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

const toRecord = (item: Record<string, unknown>): ApiKeyRecord => ApiKey.decode(item);

/** The hash the lookup item is keyed by (revocation writes to that key). */
const keyHashSchema = /* @__PURE__ */ lazy(() => zm.object({ keyHash: zm.string() }));

const countKey = (companyId: string) => ({
  pk: partitions.credentials(companyId),
  sk: sortKeys.apiKeyCount,
});

interface KeyCount {
  keys: number;
}

/** The company already holds `limit` active keys (nothing was written). */
export class ApiKeyLimitReachedError extends Error {
  constructor(readonly limit: number) {
    super(`The company holds ${limit} active API keys already`);
    this.name = 'ApiKeyLimitReachedError';
  }
}

export interface NewApiKey {
  name: string;
  scopes: Scope[];
  expiresAt?: string | undefined;
  ips?: string[] | undefined;
  /** The key that creates this one; the operator when absent. */
  createdBy?: string | undefined;
}

/**
 * Creates a key and returns its secret: the only moment the secret exists outside the caller. One
 * transaction writes the key and counts it among the company's active keys, refused past `limit`
 * (`ApiKeyLimitReachedError`).
 */
export const createApiKey = async (
  companyId: string,
  input: NewApiKey,
  now: Date,
  limit = MAX_ACTIVE_API_KEYS,
): Promise<{ record: ApiKeyRecord; key: string }> => {
  const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  const keyHash = hashApiKey(key);
  const record: ApiKeyRecord = {
    keyId: newKeyId(),
    companyId,
    name: input.name,
    scopes: input.scopes,
    createdAt: now.toISOString(),
    hint: key.slice(0, 7),
    ...(input.expiresAt === undefined ? {} : { expiresAt: input.expiresAt }),
    ...(input.ips === undefined ? {} : { ips: input.ips }),
    createdBy: input.createdBy ?? 'operator',
  };
  try {
    await ddb.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName(),
              Item: ApiKey.item(apiKeyKey(keyHash), record, { keyHash }),
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Update: {
              TableName: tableName(),
              Key: countKey(companyId),
              ...updateParams<KeyCount>(
                { add: { keys: 1 } },
                { expression: 'attribute_not_exists(#keys) OR #keys < :limit', values: { ':limit': limit } },
              ),
            },
          },
        ],
      }),
    );
  } catch (error) {
    if (cancellationReasons(error)?.[1]?.Code === 'ConditionalCheckFailed')
      throw new ApiKeyLimitReachedError(limit);
    throw error;
  }
  return { record, key };
};

/** Resolves a presented secret; `undefined` for unknown keys. Revocation is reported, not hidden. */
export const findApiKeyBySecret = async (key: string): Promise<ApiKeyRecord | undefined> => {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName(), Key: apiKeyKey(hashApiKey(key)) }),
  );
  return Item ? toRecord(Item) : undefined;
};

interface StoredKey {
  record: ApiKeyRecord;
  keyHash: string;
}

const queryCompanyKeys = async (companyId: string): Promise<StoredKey[]> =>
  (
    await queryAll({
      TableName: tableName(),
      IndexName: TABLE_SHAPE.gsi1.indexName,
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': apiKeyListKey(companyId, '', '').gsi1pk },
    })
  ).map((item) => ({
    record: toRecord(item),
    keyHash: decodeItem(ApiKey.name, keyHashSchema(), item).keyHash,
  }));

/** The list position of a key: its creation time and id, as the company's list sorts them. */
export const apiKeyPosition = (key: ApiKeyRecord): string =>
  apiKeyListKey('', key.createdAt, key.keyId).gsi1sk;

/** One page of the company's keys, oldest first, after the position `after` (`apiKeyPosition`). */
export const listApiKeyPage = async (
  companyId: string,
  options: { limit: number; after?: string | undefined },
): Promise<{ keys: ApiKeyRecord[]; more: boolean }> => {
  const { after, limit } = options;
  const { Items = [] } = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: TABLE_SHAPE.gsi1.indexName,
      KeyConditionExpression: `gsi1pk = :pk${after === undefined ? '' : ' AND gsi1sk > :after'}`,
      ExpressionAttributeValues: {
        ':pk': indexPartitions.apiKeyList(companyId),
        ...(after === undefined ? {} : { ':after': after }),
      },
      Limit: limit + 1,
    }),
  );
  return { keys: Items.slice(0, limit).map(toRecord), more: Items.length > limit };
};

/** One key of the company by id; undefined when the company has none with this id. */
export const findApiKey = async (companyId: string, keyId: string): Promise<ApiKeyRecord | undefined> =>
  (await queryCompanyKeys(companyId)).find((k) => k.record.keyId === keyId)?.record;

/** How precisely `lastUsedAt` is kept: a key in constant use is written at most once in this time. */
export const LAST_USED_RESOLUTION_MS = 60 * 60 * 1000;

/**
 * Notes that the key authenticated a request now, when its `lastUsedAt` is older than the resolution (the
 * authorizer calls it when it reads the key, so a key in use costs one write an hour, not one a request).
 */
export const touchApiKey = async (key: string, record: ApiKeyRecord, now: Date): Promise<void> => {
  const staleBefore = new Date(now.getTime() - LAST_USED_RESOLUTION_MS).toISOString();
  if (record.lastUsedAt !== undefined && record.lastUsedAt >= staleBefore) return;
  try {
    await ddb.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: apiKeyKey(hashApiKey(key)),
        ...ApiKey.update(
          { set: { lastUsedAt: now.toISOString() } },
          {
            expression:
              'attribute_exists(pk) AND (attribute_not_exists(#lastUsedAt) OR #lastUsedAt < :stale)',
            values: { ':stale': staleBefore },
          },
        ),
      }),
    );
  } catch (error) {
    // Another request noted it meanwhile.
    if (!isConditionalCheckFailed(error)) throw error;
  }
};

export class ApiKeyNotFoundError extends Error {
  constructor(keyId: string) {
    super(`No API key ${keyId} for this company`);
    this.name = 'ApiKeyNotFoundError';
  }
}

/**
 * Revokes a key of the company, and with it every token derived from it (`src` = the key id): one
 * transaction writes the key's `revokedAt` and the key's revocation record, kept until `derivedUntil` (epoch
 * seconds, when the last token derived before now has expired). Revoking twice keeps the first time.
 */
export const revokeApiKey = async (
  companyId: string,
  keyId: string,
  now: Date,
  derivedUntil: number,
): Promise<ApiKeyRecord> => {
  const found = (await queryCompanyKeys(companyId)).find((k) => k.record.keyId === keyId);
  if (!found) throw new ApiKeyNotFoundError(keyId);
  if (found.record.revokedAt) return found.record;
  try {
    await ddb.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: apiKeyKey(found.keyHash),
              ...ApiKey.update(
                { set: { revokedAt: now.toISOString() } },
                {
                  expression: 'companyId = :companyId AND attribute_not_exists(revokedAt)',
                  values: { ':companyId': companyId },
                },
              ),
            },
          },
          revocationPutItem(companyId, keyId, now, derivedUntil),
          {
            Update: {
              TableName: tableName(),
              Key: countKey(companyId),
              ...updateParams<KeyCount>({ add: { keys: -1 } }),
            },
          },
        ],
      }),
    );
    return { ...found.record, revokedAt: now.toISOString() };
  } catch (error) {
    // Revoked meanwhile by another call: that revocation stands.
    if (cancellationReasons(error)?.[0]?.Code === 'ConditionalCheckFailed') return found.record;
    throw error;
  }
};
