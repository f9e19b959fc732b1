import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, isConditionalCheckFailed, tableName } from './client';
import { partitions } from './keys';
import { fileListBackfill, STORED_OBJECT_ENTITY } from './stored-objects';

/**
 * The operator backfill of the file list (`admin files reindex`): stored objects recorded before the list
 * existed carry no `gsi1` attributes, so `GET /v1/storage/files` does not show them. A Scan (an operator
 * sweep, never a request path) reads the table a bounded page at a time, filtered to stored-object items that
 * are `stored` and have no `gsi1pk` (with a company, to its object partitions only), and gives each its index
 * attributes with the conditional update its owner builds (`fileListBackfill`).
 *
 * Idempotent: an item already indexed is no longer matched, and one indexed meanwhile fails the condition and
 * is counted as such. Resumable: each page ends with a cursor (the Scan's last key, opaque), from which a run
 * that stopped can go on without reading the table again from its start.
 */
export interface ReindexProgress {
  /** Items the Scan read (before its filter). */
  scanned: number;
  /** Stored objects without index attributes that this run indexed. */
  indexed: number;
  /** Matched items indexed by another write meanwhile (the condition failed): nothing to do. */
  alreadyIndexed: number;
  pages: number;
  /** Where the next page starts, or null when the table was read to its end. */
  cursor: string | null;
}

export const MAX_REINDEX_PAGE = 1000;

const encodeCursor = (key: Record<string, unknown> | undefined): string | null =>
  key === undefined ? null : Buffer.from(JSON.stringify(key)).toString('base64url');

/** The Scan key a cursor names; throws on one this module did not make. */
export const decodeReindexCursor = (cursor: string): Record<string, unknown> => {
  const key: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (typeof key !== 'object' || key === null || typeof (key as { pk?: unknown }).pk !== 'string')
    throw new Error('not a reindex cursor');
  return key as Record<string, unknown>;
};

/**
 * Indexes the unlisted stored objects (of `companyId`, or of every company), `pageSize` items read per Scan
 * page, from `cursor` when given, for at most `maxPages` pages; `onPage` hears the running counts after each.
 */
export const reindexStoredFiles = async (options: {
  companyId?: string | undefined;
  pageSize: number;
  cursor?: string | undefined;
  maxPages?: number | undefined;
  onPage?: (progress: ReindexProgress) => void;
}): Promise<ReindexProgress> => {
  const progress: ReindexProgress = { scanned: 0, indexed: 0, alreadyIndexed: 0, pages: 0, cursor: null };
  let startKey = options.cursor === undefined ? undefined : decodeReindexCursor(options.cursor);
  const pageSize = Math.min(Math.max(1, options.pageSize), MAX_REINDEX_PAGE);
  do {
    const page = await ddb.send(
      new ScanCommand({
        TableName: tableName(),
        Limit: pageSize,
        FilterExpression:
          '#entity = :entity AND #status = :stored AND attribute_not_exists(gsi1pk)' +
          (options.companyId === undefined ? '' : ' AND begins_with(pk, :objects)'),
        ExpressionAttributeNames: { '#entity': 'entity', '#status': 'status' },
        ExpressionAttributeValues: {
          ':entity': STORED_OBJECT_ENTITY,
          ':stored': 'stored',
          ...(options.companyId === undefined
            ? {}
            : { ':objects': partitions.storedObjects(options.companyId, '') }),
        },
        ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
      }),
    );
    progress.scanned += page.ScannedCount ?? 0;
    for (const item of page.Items ?? []) {
      const update = fileListBackfill(item);
      if (!update) continue;
      try {
        await ddb.send(new UpdateCommand({ TableName: tableName(), ...update }));
        progress.indexed += 1;
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
        progress.alreadyIndexed += 1;
      }
    }
    progress.pages += 1;
    startKey = page.LastEvaluatedKey;
    progress.cursor = encodeCursor(startKey);
    options.onPage?.({ ...progress });
  } while (startKey !== undefined && (options.maxPages === undefined || progress.pages < options.maxPages));
  return progress;
};
