import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as zm from '../zod-mini';
import { ddb, isConditionalCheckFailed, tableName } from './client';
import { defineEntity } from './entity';
import { partitions, sortKeys } from './keys';

/**
 * A company's message delivery channel: one webhook endpoint (URL and signing secret) per company, set by the
 * company (`PUT /v1/messaging/channel`) or the operator (`admin channels set`), both through
 * `domain/messages/channel.ts`. The secret signs every delivery (Standard Webhooks); after a rotation
 * `previousSecret` signs beside it until `previousSecretExpiresAt`. Every write is conditional on the
 * channel as it was read (`updatedAt`), so concurrent changes never silently overwrite each other.
 */
export const deliveryChannelKey = (companyId: string) => ({
  pk: partitions.deliveryChannel(companyId),
  sk: sortKeys.deliveryChannel,
});

const Channel = /* @__PURE__ */ defineEntity({
  name: 'delivery_channel',
  key: deliveryChannelKey,
  get schema() {
    return zm.object({
      url: zm.string(),
      secret: zm.string(),
      previousSecret: zm.optional(zm.string()),
      previousSecretExpiresAt: zm.optional(zm.string()),
      createdAt: zm.optional(zm.string()),
      updatedAt: zm.string(),
    });
  },
});

export type DeliveryChannel = zm.output<typeof Channel.schema>;

/** The channel was created, changed or deleted since it was read (nothing was written). */
export class ChannelChangedError extends Error {
  constructor() {
    super('the delivery channel changed since it was read');
    this.name = 'ChannelChangedError';
  }
}

/** The condition that the stored channel is still the one read (`undefined`: there was none). */
const unchangedSince = (readUpdatedAt: string | undefined) =>
  readUpdatedAt === undefined
    ? { ConditionExpression: 'attribute_not_exists(pk)' }
    : {
        ConditionExpression: '#updatedAt = :was',
        ExpressionAttributeNames: { '#updatedAt': 'updatedAt' },
        ExpressionAttributeValues: { ':was': readUpdatedAt },
      };

/**
 * Writes the channel whole, only while the stored one is still the one read (its `updatedAt`, or none);
 * throws `ChannelChangedError` otherwise.
 */
export const writeDeliveryChannel = async (
  companyId: string,
  channel: DeliveryChannel,
  readUpdatedAt: string | undefined,
): Promise<void> => {
  try {
    await ddb.send(
      new PutCommand({
        TableName: tableName(),
        Item: Channel.item(deliveryChannelKey(companyId), channel),
        ...unchangedSince(readUpdatedAt),
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new ChannelChangedError();
    throw error;
  }
};

/** Deletes the channel read (its `updatedAt`); throws `ChannelChangedError` when it changed or is gone. */
export const deleteDeliveryChannel = async (companyId: string, readUpdatedAt: string): Promise<void> => {
  try {
    await ddb.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: deliveryChannelKey(companyId),
        ...unchangedSince(readUpdatedAt),
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new ChannelChangedError();
    throw error;
  }
};

export const getDeliveryChannel = async (companyId: string): Promise<DeliveryChannel | undefined> => {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName(), Key: deliveryChannelKey(companyId) }),
  );
  return Item ? Channel.decode(Item) : undefined;
};
