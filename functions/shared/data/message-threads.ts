import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { getItemsByKey } from './batch';
import { ddb, isConditionalCheckFailed, tableName } from './client';
import { MESSAGES_TYPE, type StoredItem, toStoredItem } from './dynadata-items';
import type { TransactItem } from './entity';
import { messageThread, partitions } from './keys';

/**
 * A contact's message thread (`GET /v1/contacts/{contactId}/messages`): one entry per message, in the
 * partition `CO#<companyId>#DD#messages#THREAD#<contactId>` with the message's `_id` (a ULID) as sort key,
 * so a page is one Query newest first and one `BatchGetItem` of the messages it names. The entry is written
 * in the transaction that stores the message, and holds nothing else: a message's status changes never touch
 * it. Messages stored before threads existed have none until `admin messages reindex` gives them one.
 */
export const THREAD_ENTRY_ENTITY = 'message_thread_entry';

const threadEntry = (companyId: string, contactId: string, messageId: string) => ({
  pk: messageThread(companyId, contactId),
  sk: messageId,
  entity: THREAD_ENTRY_ENTITY,
});

/** The transaction item that puts a new message on its contact's thread. */
export const threadEntryItem = (companyId: string, contactId: string, messageId: string): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: threadEntry(companyId, contactId, messageId),
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/** Puts an older message on its contact's thread (the backfill); false when it already was. */
export const backfillThreadEntry = async (
  companyId: string,
  contactId: string,
  messageId: string,
): Promise<boolean> => {
  try {
    await ddb.send(
      new PutCommand({
        TableName: tableName(),
        Item: threadEntry(companyId, contactId, messageId),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
};

/**
 * One page of a contact's thread, newest first, before the message `before` when given: the messages and,
 * when an older one follows, the `_id` the next page starts before. An entry whose message is gone (deleted since) is left out of the page.
 */
export const threadPage = async (
  companyId: string,
  contactId: string,
  limit: number,
  before?: string,
): Promise<{ messages: StoredItem[]; next: string | undefined }> => {
  const pk = messageThread(companyId, contactId);
  const { Items = [] } = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: before === undefined ? 'pk = :pk' : 'pk = :pk AND sk < :before',
      ExpressionAttributeValues: { ':pk': pk, ...(before === undefined ? {} : { ':before': before }) },
      ScanIndexForward: false,
      // One more than the page: whether an older message follows, without an empty last page.
      Limit: limit + 1,
    }),
  );
  const ids = Items.slice(0, limit).map((raw) => String(raw.sk));
  if (ids.length === 0) return { messages: [], next: undefined };
  const messagesPartition = partitions.dynadataItems(companyId, MESSAGES_TYPE);
  const found = await getItemsByKey(
    ids.map((id) => ({
      key: { pk: messagesPartition, sk: id },
      decode: (raw: Record<string, unknown>) => toStoredItem(MESSAGES_TYPE, raw),
    })),
  );
  return {
    messages: found.filter((m): m is StoredItem => m !== undefined),
    next: Items.length > limit ? ids.at(-1) : undefined,
  };
};
