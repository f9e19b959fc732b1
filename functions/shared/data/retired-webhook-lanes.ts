import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, isConditionalCheckFailed, queryAll, tableName } from './client';
import { retiredLaneKeys } from './keys';
import { TABLE_SHAPE } from './table';

/**
 * The webhook lanes that SQS FIFO message groups replaced (`docs/decisions/0060-webhook-order-by-fifo-groups.md`),
 * as the release before it left them: a lane's head item (`CO#<companyId>#WHLANE#<endpointId>#<resourceId>`,
 * `LANE`: the lane's identity, its `pending` count, its owner and lease, and `fast`, the delivery taken on an
 * idle lane) and one `Q#<eventId>` entry per queued delivery; the head item is in the keys-only `work` index
 * partition `WHLANE#UNFINISHED` while the lane carries deliveries. Nothing writes them any more; the operator
 * command `webhooks resend-lanes` reads them, sends their pending deliveries to the FIFO queue and removes
 * them.
 */

/** A lane as read: its identity, the deliveries it names (event ids, in the order it would have sent them). */
export interface RetiredLane {
  companyId: string;
  endpointId: string;
  resourceId: string;
  /** The delivery taken on the idle-lane fast path (sent before any entry), if any. */
  fast?: string;
  /** The queued deliveries, oldest event first. */
  entries: string[];
  /** The head item's `pending` count and owner as read: its deletion is conditional on them (and `fast`). */
  pending?: number;
  owner?: string;
  /** The lane's partition key. */
  partition: string;
}

/** One page of the lanes listed in `WHLANE#UNFINISHED`: their partitions, and where the next page starts. */
export const retiredLanePage = async (
  pageSize: number,
  from?: Record<string, unknown>,
): Promise<{ partitions: string[]; next?: Record<string, unknown> }> => {
  const { work } = TABLE_SHAPE;
  const { Items = [], LastEvaluatedKey } = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: work.indexName,
      KeyConditionExpression: '#p = :p',
      ExpressionAttributeNames: { '#p': work.partitionKey },
      ExpressionAttributeValues: { ':p': retiredLaneKeys.unfinished },
      Limit: pageSize,
      ...(from ? { ExclusiveStartKey: from } : {}),
    }),
  );
  return {
    partitions: Items.filter((item) => item.sk === retiredLaneKeys.head).map((item) => String(item.pk)),
    ...(LastEvaluatedKey ? { next: LastEvaluatedKey } : {}),
  };
};

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/**
 * The lane of partition `partition`, read consistently (its head item and every entry, page after page);
 * undefined when its head item is gone (removed meanwhile) or does not name its company, endpoint and resource.
 */
export const readRetiredLane = async (partition: string): Promise<RetiredLane | undefined> => {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': partition },
    ConsistentRead: true,
  });
  const head = items.find((item) => item.sk === retiredLaneKeys.head);
  const [companyId, endpointId, resourceId] = [head?.companyId, head?.endpointId, head?.resourceId].map(text);
  if (!head || !companyId || !endpointId || !resourceId) return undefined;
  // Entries sort by event id (ULIDs: the order the events happened), as the query returns them.
  const prefix = retiredLaneKeys.entry('');
  const entries = items
    .filter((item) => String(item.sk).startsWith(prefix))
    .map((item) => String(item.sk).slice(prefix.length));
  const fast = text(head.fast);
  const owner = text(head.owner);
  return {
    companyId,
    endpointId,
    resourceId,
    entries,
    partition,
    ...(fast ? { fast } : {}),
    ...(typeof head.pending === 'number' ? { pending: head.pending } : {}),
    ...(owner ? { owner } : {}),
  };
};

/** `attribute = :value` when the lane had it as read, `attribute_not_exists` when it had none. */
const sameAs = (name: string, value: string | number | undefined) =>
  value === undefined ? `attribute_not_exists(#${name})` : `#${name} = :${name}`;

/**
 * Removes the lane: its entries as read, then its head item, conditional on it being as read (same `pending`
 * count, owner and `fast` delivery). `changed` when it was not (a writer of the release before touched it
 * meanwhile): its head item stays, listed, for a run that reads it again.
 */
export const removeRetiredLane = async (lane: RetiredLane): Promise<'removed' | 'changed'> => {
  for (const eventId of lane.entries)
    await ddb.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: { pk: lane.partition, sk: retiredLaneKeys.entry(eventId) },
      }),
    );
  const read = { pending: lane.pending, owner: lane.owner, fast: lane.fast };
  const present = Object.entries(read).filter(([, value]) => value !== undefined);
  try {
    await ddb.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: { pk: lane.partition, sk: retiredLaneKeys.head },
        ConditionExpression: [
          'attribute_exists(pk)',
          ...Object.entries(read).map(([n, v]) => sameAs(n, v)),
        ].join(' AND '),
        ExpressionAttributeNames: Object.fromEntries(Object.keys(read).map((name) => [`#${name}`, name])),
        ...(present.length > 0
          ? { ExpressionAttributeValues: Object.fromEntries(present.map(([n, v]) => [`:${n}`, v])) }
          : {}),
      }),
    );
    return 'removed';
  } catch (error) {
    if (isConditionalCheckFailed(error)) return 'changed';
    throw error;
  }
};
