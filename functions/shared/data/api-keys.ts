import { createHash, randomBytes } from 'node:crypto';
import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { newKeyId } from '../ids';
import { lazy } from '../lazy';
import { SCOPES, type Scope } from '../types/scopes';
import * as zm from '../zod-mini';
import { ddb, queryAll, tableName } from './client';
import { revocationPutItem } from './credentials';
import { decodeItem, defineEntity } from './entity';
import { indexPartitions, partitions, sortKeys } from './keys';
import { TABLE_SHAPE } from './table';
import { cancellationReasons } from './transactions';

/**
 * API keys are looked up by the SHA-256 of the secret, so the lookup item is global (`APIKEY#<hash>`); the
 * company's list of keys is the GSI partition `CO#<companyId>#APIKEYS`. The secret itself is never stored.
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
    }) satisfies zm.ZodMiniType<ApiKeyRecord>;
  },
  // The company's list of its keys, oldest first.
  index: (key) => apiKeyListKey(key.companyId, key.createdAt, key.keyId),
});

export const hashApiKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

const toRecord = (item: Record<string, unknown>): ApiKeyRecord => ApiKey.decode(item);

/** The hash the lookup item is keyed by (revocation writes to that key). */
const keyHashSchema = /* @__PURE__ */ lazy(() => zm.object({ keyHash: zm.string() }));

/** Creates a key and returns its secret: the only moment the secret exists outside the caller. */
export const createApiKey = async (
  companyId: string,
  input: { name: string; scopes: Scope[] },
  now: Date,
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
  };
  await ddb.send(
    new PutCommand({
      TableName: tableName(),
      Item: ApiKey.item(apiKeyKey(keyHash), record, { keyHash }),
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
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

export const listApiKeys = async (companyId: string): Promise<ApiKeyRecord[]> =>
  (await queryCompanyKeys(companyId)).map((k) => k.record);

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
