import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { call, createTenant } from './support';

const { LogEntryItem, legacyLogEntryKey, logDayOf, logShardOf, putLogEntries } = await import(
  '../../functions/shared/data/log-entries'
);
const { ddb, tableName } = await import('../../functions/shared/data/client');
const { countItems } = await import('../../functions/shared/domain/dynadata/count');

type Item = { _id: string; status: number; requestId: string };

const DAY = 86_400_000;

/**
 * Entries over two UTC days (three days ago, the last and first minutes around midnight), spread over the
 * shards by their request ids, and two entries of the single partition written before the sharding.
 */
const seed = async (companyId: string) => {
  const midnight = Math.floor(Date.now() / DAY) * DAY - 2 * DAY;
  const expiresAt = Math.floor(Date.now() / 1000) + 7 * 86_400;
  const tag = Math.random().toString(36).slice(2, 8);
  const entries = Array.from({ length: 26 }, (_, i) => {
    const timeEpochMs = midnight + (i - 13) * 7_000 + (i % 3);
    const requestId = `req-${tag}-${i}`;
    return {
      companyId,
      timeEpochMs,
      expiresAt,
      entry: {
        requestId,
        time: new Date(timeEpochMs).toISOString(),
        method: 'GET',
        path: `/v1/probe/${i}`,
        route: '/probe',
        status: i % 4 === 0 ? 404 : 200,
        latencyMs: 5,
        authMethod: 'api_key',
        keyId: null,
        sourceIp: '127.0.0.1',
        userAgent: 'shard-probe',
      },
    };
  });
  await putLogEntries(entries);
  const legacy = [midnight - 30_500, midnight + 20_500].map((timeEpochMs, i) => {
    const requestId = `old-${tag}-${i}`;
    const entry = { ...entries[0]?.entry, requestId, time: new Date(timeEpochMs).toISOString(), status: 404 };
    return { timeEpochMs, requestId, entry };
  });
  for (const { timeEpochMs, requestId, entry } of legacy) {
    await ddb.send(
      new PutCommand({
        TableName: tableName(),
        Item: LogEntryItem.item(legacyLogEntryKey(companyId, timeEpochMs, requestId), entry as never, {
          ttl: expiresAt,
        }),
      }),
    );
  }
  const all = [
    ...entries.map((e) => ({ ...e, requestId: e.entry.requestId, status: e.entry.status })),
    ...legacy,
  ];
  const ids = all
    .map((e) => ({ id: `${String(e.timeEpochMs).padStart(15, '0')}-${e.requestId}`, status: e.entry.status }))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  return {
    ids: ids.map((e) => e.id),
    notFound: ids.filter((e) => e.status === 404).map((e) => e.id),
    days: new Set(entries.map((e) => logDayOf(e.timeEpochMs))),
    shards: new Set(entries.map((e) => logShardOf(e.entry.requestId))),
    first: ids[0]?.id as string,
    last: ids[ids.length - 1]?.id as string,
  };
};

const pageAll = async (headers: Record<string, string>, body: Record<string, unknown>) => {
  const seen: Item[] = [];
  let cursor: string | undefined;
  for (let n = 0; n < 50; n++) {
    const res = await call('POST', '/v1/dynadata/type/log_entries/list', {
      headers,
      body: { ...body, ...(cursor ? { cursor } : {}) },
    });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const items = res.json.items as Item[];
    expect(items.length).toBeLessThanOrEqual(Number(body.limit));
    seen.push(...items);
    cursor = (res.json.nextCursor as string | null) ?? undefined;
    if (!cursor) return seen;
  }
  throw new Error('no last page');
};

describe('log_entries over shards and days', () => {
  it('pages every entry exactly once and in order across shards, days and the old partition', async () => {
    const t = await createTenant();
    const headers = { 'x-api-key': t.apiKey };
    const seeded = await seed(t.companyId);
    expect(seeded.days.size).toBe(2);
    expect(seeded.shards.size).toBeGreaterThanOrEqual(3);
    const range = { _id: { gte: seeded.first, lte: seeded.last } };

    const up = await pageAll(headers, { filter: range, sort: { field: '_id', order: 'asc' }, limit: 3 });
    expect(up.map((i) => i._id)).toEqual(seeded.ids);
    const down = await pageAll(headers, { filter: range, limit: 4 });
    expect(down.map((i) => i._id)).toEqual([...seeded.ids].reverse());

    // Unfiltered: the company's own requests (shipped meanwhile, newer) come first newest first, last oldest
    // first; the seeded entries are all there, once, in order.
    const all = await pageAll(headers, { limit: 5 });
    const ids = all.map((i) => i._id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort().reverse());
    expect(ids.filter((id) => seeded.ids.includes(id))).toEqual([...seeded.ids].reverse());
    const oldest = await pageAll(headers, { sort: { field: '_id', order: 'asc' }, limit: 7 });
    expect(oldest.slice(0, seeded.ids.length).map((i) => i._id)).toEqual(seeded.ids);
    const farBound = await pageAll(headers, {
      filter: { _id: { gte: seeded.first, lte: '999999999999999-z' } },
      sort: { field: '_id', order: 'asc' },
      limit: 9,
    });
    expect(farBound.slice(0, seeded.ids.length).map((i) => i._id)).toEqual(seeded.ids);

    // A filter keeps its meaning across shards: the 404s, in order, over small pages.
    const notFound = await pageAll(headers, { filter: { ...range, status: 404 }, limit: 2 });
    expect(notFound.map((i) => i._id)).toEqual([...seeded.notFound].reverse());
    const lt = await pageAll(headers, { filter: { _id: { gte: seeded.first, lt: seeded.last } }, limit: 6 });
    expect(lt.map((i) => i._id)).toEqual(seeded.ids.slice(0, -1).reverse());

    // Each entry reads by its id, the old partition's too; a count covers every partition.
    for (const id of [seeded.first, seeded.ids[5] as string, seeded.last]) {
      const one = await call('GET', `/v1/dynadata/type/log_entries/item/${id}`, { headers });
      expect(one.status, id).toBe(200);
      expect(one.json._id).toBe(id);
    }
    let counted = await countItems(t.companyId, 'log_entries', range, { maxExamined: 4 });
    while (counted.cursor)
      counted = await countItems(t.companyId, 'log_entries', range, {
        maxExamined: 4,
        cursor: counted.cursor,
      });
    expect(counted).toEqual({ count: seeded.ids.length, complete: true, cursor: null });

    // Another company sees none of them.
    const other = await createTenant();
    const theirs = await pageAll({ 'x-api-key': other.apiKey }, { filter: range, limit: 10 });
    expect(theirs).toEqual([]);
    const notTheirs = await call('GET', `/v1/dynadata/type/log_entries/item/${seeded.first}`, {
      headers: { 'x-api-key': other.apiKey },
    });
    expect(notTheirs.status).toBe(404);
  });
});
