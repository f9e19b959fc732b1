import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as zm from '../zod-mini';
import { ddb, tableName } from './client';
import { defineEntity } from './entity';
import { partitions, sortKeys } from './keys';

/**
 * A company's message delivery channel: one webhook endpoint (URL and signing secret) per company, set by
 * operators (`admin channels set`). The secret signs every delivery (Standard Webhooks) and is shown once.
 */
export const deliveryChannelKey = (companyId: string) => ({
  pk: partitions.deliveryChannel(companyId),
  sk: sortKeys.deliveryChannel,
});

const Channel = /* @__PURE__ */ defineEntity({
  name: 'delivery_channel',
  key: deliveryChannelKey,
  get schema() {
    return zm.object({ url: zm.string(), secret: zm.string(), updatedAt: zm.string() });
  },
});

export type DeliveryChannel = zm.output<typeof Channel.schema>;

export const putDeliveryChannel = async (companyId: string, channel: DeliveryChannel): Promise<void> => {
  await ddb.send(
    new PutCommand({
      TableName: tableName(),
      Item: Channel.item(deliveryChannelKey(companyId), channel),
    }),
  );
};

export const getDeliveryChannel = async (companyId: string): Promise<DeliveryChannel | undefined> => {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName(), Key: deliveryChannelKey(companyId) }),
  );
  return Item ? Channel.decode(Item) : undefined;
};
