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
 * it. Messages stored before threads existed have none until `admin messages reindex` gives them one
 * (`reindexMessageThreads`).
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

/** Puts an older message on its contact's thread; false when it already was. */
const backfillThreadEntry = async (companyId: string, contactId: string, messageId: string) => {
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
 * The operator backfill (`admin messages reindex --company ID`): reads the company's messages partition a
 * page at a time and puts each message on its contact's thread unless it already is (a conditional put), so
 * a run can be repeated or stopped at any time. Answers how many entries it wrote and found.
 */
export const reindexMessageThreads = async (
  companyId: string,
): Promise<{ messages: number; indexed: number; alreadyIndexed: number }> => {
  const counts = { messages: 0, indexed: 0, alreadyIndexed: 0 };
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await ddb.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': partitions.dynadataItems(companyId, MESSAGES_TYPE) },
        ProjectionExpression: 'sk, #data.contactId',
        ExpressionAttributeNames: { '#data': 'data' },
        Limit: 500,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    for (const raw of page.Items ?? []) {
      const contactId = (raw.data as { contactId?: unknown } | undefined)?.contactId;
      if (typeof contactId !== 'string') continue;
      counts.messages++;
      if (await backfillThreadEntry(companyId, contactId, String(raw.sk))) counts.indexed++;
      else counts.alreadyIndexed++;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return counts;
};

/**
 * One page of a contact's thread, newest first, before the message `before` when given: the messages and,
 * when an older one follows, the `_id` the next page starts before. An entry whose message is gone is left
 * out of the page.
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
