import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client';
import { partitions, sortKeys } from './keys';

/**
 * A company's message delivery channel: one webhook endpoint (URL and signing secret) per company, set by
 * operators (`admin channels set`). The secret signs every delivery (Standard Webhooks) and is shown once.
 */
export const deliveryChannelKey = (companyId: string) => ({
  pk: partitions.deliveryChannel(companyId),
  sk: sortKeys.deliveryChannel,
});

export interface DeliveryChannel {
  url: string;
  secret: string;
  updatedAt: string;
}

export const putDeliveryChannel = async (companyId: string, channel: DeliveryChannel): Promise<void> => {
  await ddb.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...deliveryChannelKey(companyId), entity: 'delivery_channel', ...channel },
    }),
  );
};

export const getDeliveryChannel = async (companyId: string): Promise<DeliveryChannel | undefined> => {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName(), Key: deliveryChannelKey(companyId) }),
  );
  return Item
    ? { url: String(Item.url), secret: String(Item.secret), updatedAt: String(Item.updatedAt) }
    : undefined;
};
