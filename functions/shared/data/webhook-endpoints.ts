import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as zm from '../zod-mini';
import { ddb, isConditionalCheckFailed, queryAll, tableName } from './client';
import { defineEntity, putItem } from './entity';
import { partitions, sortKeys } from './keys';
import { transactUnlessFailed } from './transactions';
import { type Change, ifAbsent, updateParams } from './update-expression';

/**
 * Webhook endpoints of a company (`CO#<companyId>#WEBHOOK`): `EP#<endpointId>` per endpoint and `COUNT`, the
 * number of endpoints, changed only in the transaction that creates or deletes one (conditional on the
 * plan's cap), so concurrent creations cannot pass it.
 *
 * An endpoint is `enabled` or `disabled` (with `disabledReason`): deliveries that keep failing for the
 * disable period disable it. `failingSince` is the first failed attempt since the last success; `failingMs`
 * is how long it has been tried and failing since then: each failure adds the time since the previous one
 * (`lastFailedAt`), at most the longest a failing endpoint waits between two tries, so time in which no one
 * tried it (no events, a stopped platform) does not count.
 *
 * `secret` signs every delivery; after a rotation `previousSecret` signs beside it until
 * `previousSecretExpiresAt` (the overlap in which a consumer moves to the new secret).
 */
export const webhookPartition = partitions.webhooks;
export const endpointKey = (companyId: string, endpointId: string) => ({
  pk: webhookPartition(companyId),
  sk: sortKeys.webhookEndpoint(endpointId),
});
const countKey = (companyId: string) => ({ pk: webhookPartition(companyId), sk: sortKeys.webhookCount });

export interface WebhookEndpointRecord {
  id: string;
  companyId: string;
  url: string;
  events: string[];
  /** Only events about items of these Dynadata types among the `dynadata.item.*` ones (absent: all types). */
  dynadataTypes?: string[];
  description?: string;
  secret: string;
  previousSecret?: string;
  previousSecretExpiresAt?: string;
  status: 'enabled' | 'disabled';
  disabledReason?: string;
  disabledAt?: string;
  failingSince?: string;
  failingMs?: number;
  lastFailedAt?: string;
  createdAt: string;
  updatedAt: string;
}

export const WebhookEndpoint = /* @__PURE__ */ defineEntity({
  name: 'webhook_endpoint',
  key: endpointKey,
  get schema() {
    return zm.object({
      id: zm.string(),
      companyId: zm.string(),
      url: zm.string(),
      events: zm.array(zm.string()),
      dynadataTypes: zm.optional(zm.array(zm.string())),
      description: zm.optional(zm.string()),
      secret: zm.string(),
      previousSecret: zm.optional(zm.string()),
      previousSecretExpiresAt: zm.optional(zm.string()),
      status: zm.enum(['enabled', 'disabled']),
      disabledReason: zm.optional(zm.string()),
      disabledAt: zm.optional(zm.string()),
      failingSince: zm.optional(zm.string()),
      failingMs: zm.optional(zm.number()),
      lastFailedAt: zm.optional(zm.string()),
      createdAt: zm.string(),
      updatedAt: zm.string(),
    }) satisfies zm.ZodMiniType<WebhookEndpointRecord>;
  },
});

const toEndpoint = (item: Record<string, unknown>): WebhookEndpointRecord => WebhookEndpoint.decode(item);

export class EndpointLimitReachedError extends Error {
  constructor() {
    super('the company has as many webhook endpoints as its plan allows');
    this.name = 'EndpointLimitReachedError';
  }
}

/** The company's count of webhook endpoints. */
interface EndpointCount {
  entity: string;
  endpoints: number;
}

export const createEndpoint = async (endpoint: WebhookEndpointRecord, cap: number): Promise<void> => {
  const put = putItem(WebhookEndpoint, endpointKey(endpoint.companyId, endpoint.id), endpoint, {
    condition: { expression: 'attribute_not_exists(pk)' },
  });
  const count = {
    Update: {
      TableName: tableName(),
      Key: countKey(endpoint.companyId),
      ...updateParams<EndpointCount>(
        { add: { endpoints: 1 }, set: { entity: 'webhook_count' } },
        { expression: 'attribute_not_exists(endpoints) OR endpoints < :cap', values: { ':cap': cap } },
      ),
    },
  };
  if (!(await transactUnlessFailed([put, count], 1))) throw new EndpointLimitReachedError();
};

export const getEndpoint = async (
  companyId: string,
  endpointId: string,
): Promise<WebhookEndpointRecord | undefined> => {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName(), Key: endpointKey(companyId, endpointId), ConsistentRead: true }),
  );
  return Item ? toEndpoint(Item) : undefined;
};

/** Every endpoint of the company, oldest first (a company has few: the plan caps them). */
export const listEndpoints = async (companyId: string): Promise<WebhookEndpointRecord[]> =>
  (
    await queryAll({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :ep)',
      ExpressionAttributeValues: { ':pk': webhookPartition(companyId), ':ep': sortKeys.webhookEndpoint('') },
      ConsistentRead: true,
    })
  ).map(toEndpoint);

/** Deletes the endpoint and releases its place; false when it does not exist. */
export const deleteEndpoint = (companyId: string, endpointId: string): Promise<boolean> =>
  transactUnlessFailed(
    [
      {
        Delete: {
          TableName: tableName(),
          Key: endpointKey(companyId, endpointId),
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
      {
        Update: {
          TableName: tableName(),
          Key: countKey(companyId),
          ...updateParams<EndpointCount>({ add: { endpoints: -1 } }),
        },
      },
    ],
    0,
  );

/** A change to an endpoint's stored fields. */
export type EndpointChange = Change<WebhookEndpointRecord>;

/** The endpoint was changed since it was read (an attribute the write expected had another value). */
export class EndpointChangedError extends Error {
  constructor() {
    super('the webhook endpoint changed since it was read');
    this.name = 'EndpointChangedError';
  }
}

/**
 * Changes an existing endpoint as `change` describes, only while each attribute of `expected` still has that
 * value (the endpoint as it was read). Answers the endpoint after the write, or undefined when it does not
 * exist; throws `EndpointChangedError` when it exists but no longer matches `expected`.
 */
export const changeEndpoint = async (
  companyId: string,
  endpointId: string,
  change: EndpointChange,
  expected: Readonly<Partial<Record<'secret' | 'updatedAt', string>>> = {},
): Promise<WebhookEndpointRecord | undefined> => {
  const key = endpointKey(companyId, endpointId);
  const expectations = Object.entries(expected).map(([name, value], i) => ({ name, value, i }));
  try {
    const { Attributes } = await ddb.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        ...WebhookEndpoint.update(change, {
          expression: ['attribute_exists(pk)', ...expectations.map(({ i }) => `#was${i} = :was${i}`)].join(
            ' AND ',
          ),
          names: Object.fromEntries(expectations.map(({ name, i }) => [`#was${i}`, name])),
          values: Object.fromEntries(expectations.map(({ value, i }) => [`:was${i}`, value])),
        }),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toEndpoint({ ...key, ...Attributes });
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    if (expectations.length > 0 && (await getEndpoint(companyId, endpointId)))
      throw new EndpointChangedError();
    return undefined;
  }
};

/** A successful delivery: the endpoint is no longer failing. */
export const recordEndpointSuccess = async (companyId: string, endpointId: string): Promise<void> => {
  try {
    await ddb.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: endpointKey(companyId, endpointId),
        ...WebhookEndpoint.update(
          { remove: ['failingSince', 'failingMs', 'lastFailedAt'] },
          { expression: 'attribute_exists(failingSince)' },
        ),
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
};

/**
 * A failed attempt: adds the time since the previous failure (at most `longestGapMs`) to `failingMs`, and
 * disables the endpoint with `reason(failingMs)` once it reaches `disableAfterMs`. A failure recorded by
 * another delivery meanwhile (the write is conditional on the previous failure it read) adds nothing.
 * Returns the endpoint after the write, or undefined when it no longer exists.
 */
export const recordEndpointFailure = async (options: {
  companyId: string;
  endpointId: string;
  now: Date;
  longestGapMs: number;
  disableAfterMs: number;
  reason: (failingMs: number) => string;
}): Promise<WebhookEndpointRecord | undefined> => {
  const { companyId, endpointId, now } = options;
  const key = endpointKey(companyId, endpointId);
  const before = await getEndpoint(companyId, endpointId);
  if (!before) return undefined;
  const previous = before.lastFailedAt;
  const gap = previous ? now.getTime() - Date.parse(previous) : 0;
  try {
    const { Attributes } = await ddb.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        ...WebhookEndpoint.update(
          {
            set: { failingSince: ifAbsent(now.toISOString()), lastFailedAt: now.toISOString() },
            add: { failingMs: Math.min(Math.max(0, gap), options.longestGapMs) },
          },
          {
            expression: `attribute_exists(pk) AND ${previous ? 'lastFailedAt = :previous' : 'attribute_not_exists(lastFailedAt)'}`,
            values: previous ? { ':previous': previous } : {},
          },
        ),
        ReturnValues: 'ALL_NEW',
      }),
    );
    const endpoint = toEndpoint({ ...key, ...Attributes });
    const failingMs = endpoint.failingMs ?? 0;
    if (endpoint.status === 'enabled' && failingMs >= options.disableAfterMs) {
      const { Attributes: disabled } = await ddb.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key,
          ...WebhookEndpoint.update(
            {
              set: {
                status: 'disabled',
                disabledReason: options.reason(failingMs),
                disabledAt: now.toISOString(),
                updatedAt: now.toISOString(),
              },
            },
            { expression: 'attribute_exists(pk) AND #status = :enabled', values: { ':enabled': 'enabled' } },
          ),
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toEndpoint({ ...key, ...disabled });
    }
    return endpoint;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return getEndpoint(companyId, endpointId);
    throw error;
  }
};
