import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as zm from '../zod-mini';
import { ddb, isConditionalCheckFailed, tableName } from './client';
import { defineEntity } from './entity';
import { partitions, sortKeys } from './keys';

/**
 * Idempotency records: one per company, operation and `Idempotency-Key`, in the company's `CO#<id>#IDEM`
 * partition, expiring by TTL 24 hours after the first request.
 *
 * A claim holds the key `in_progress` until `lockedUntil` (epoch ms, `IDEMPOTENCY_LOCK_MS` after the claim,
 * longer than API Gateway's 29 s integration timeout, so a request still running always holds its lock). A
 * request that crashed before completing or releasing its key leaves an `in_progress` record behind: past
 * its lock a new claim takes it over instead of answering 409 for the rest of the 24 hours.
 */
export const idempotencyKey = (companyId: string, scope: string, key: string) => ({
  pk: partitions.idempotency(companyId),
  sk: sortKeys.idempotency(scope, key),
});

export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
export const IDEMPOTENCY_LOCK_MS = 30_000;

export interface IdempotencyRecord {
  requestHash: string;
  status: 'in_progress' | 'done';
  response?: { status: number; body: unknown };
  expiresAt: number;
}

/** The stored record: `response` is JSON text, written when the request completed. */
const Idempotency = /* @__PURE__ */ defineEntity({
  name: 'idempotency',
  key: idempotencyKey,
  get schema() {
    return zm.object({
      requestHash: zm.string(),
      status: zm.enum(['in_progress', 'done']),
      createdAt: zm.string(),
      lockedUntil: zm.optional(zm.number()),
      response: zm.optional(zm.string()),
    });
  },
});

/** Claims the key; returns the existing record when the key was already used (and has not expired). */
export const claimIdempotencyKey = async (
  companyId: string,
  scope: string,
  key: string,
  requestHash: string,
  now: Date,
): Promise<IdempotencyRecord | undefined> => {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  try {
    await ddb.send(
      new PutCommand({
        TableName: tableName(),
        Item: Idempotency.item(
          idempotencyKey(companyId, scope, key),
          {
            requestHash,
            status: 'in_progress',
            createdAt: now.toISOString(),
            lockedUntil: now.getTime() + IDEMPOTENCY_LOCK_MS,
          },
          { ttl: nowSeconds + IDEMPOTENCY_TTL_SECONDS },
        ),
        ConditionExpression:
          'attribute_not_exists(pk) OR #ttl < :now OR (#s = :inProgress AND ' +
          '(attribute_not_exists(lockedUntil) OR lockedUntil < :nowMs))',
        ExpressionAttributeNames: { '#ttl': 'ttl', '#s': 'status' },
        ExpressionAttributeValues: {
          ':now': nowSeconds,
          ':nowMs': now.getTime(),
          ':inProgress': 'in_progress',
        },
      }),
    );
    return undefined;
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
  const { Item } = await ddb.send(
    new GetCommand({
      TableName: tableName(),
      Key: idempotencyKey(companyId, scope, key),
      ConsistentRead: true,
    }),
  );
  if (!Item) return { requestHash, status: 'in_progress', expiresAt: nowSeconds };
  const stored = Idempotency.decode(Item);
  return {
    requestHash: stored.requestHash,
    status: stored.status,
    ...(stored.response === undefined
      ? {}
      : { response: JSON.parse(stored.response) as IdempotencyRecord['response'] }),
    expiresAt: Number(Item.ttl),
  };
};

export const completeIdempotencyKey = async (
  companyId: string,
  scope: string,
  key: string,
  response: { status: number; body: unknown },
): Promise<void> => {
  await ddb.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: idempotencyKey(companyId, scope, key),
      ...Idempotency.update({ set: { status: 'done', response: JSON.stringify(response) } }),
    }),
  );
};

/** Frees the key after a failed request, so the client may retry it. */
export const releaseIdempotencyKey = async (companyId: string, scope: string, key: string): Promise<void> => {
  await ddb
    .send(
      new DeleteCommand({
        TableName: tableName(),
        Key: idempotencyKey(companyId, scope, key),
        ConditionExpression: '#s = :p',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':p': 'in_progress' },
      }),
    )
    .catch((error: unknown) => {
      if (!isConditionalCheckFailed(error)) throw error;
    });
};
