import { describe, expect, it } from 'vitest';
import { createTenant } from './support';

const { dynamodbClient, ddb, tableName } = await import('../../functions/shared/data/client');
const { QueryCommand, TransactWriteCommand } = await import('@aws-sdk/lib-dynamodb');
const meters = await import('../../functions/shared/data/usage-meters');
const { sendTransaction } = await import('../../functions/shared/data/transactions');
const { getUsageSnapshot } = await import('../../functions/shared/domain/usage');
const { installCapacityMeter } = await import('../bench/consumed-capacity');
const { COMPUTE_CATEGORIES, METERS } = await import('../../functions/shared/types/meters');

type Figures = { meters: Record<string, number>; computeMs: Record<string, number> };

/**
 * The size DynamoDB bills an item at: each attribute's name in UTF-8 plus its value (a string in UTF-8, a
 * number at one byte per two significant digits plus one).
 */
const itemSize = (item: Record<string, unknown>): number =>
  Object.entries(item).reduce((size, [name, value]) => {
    const digits = (v: number) =>
      String(Math.abs(v))
        .replace(/[.-]|e.*$/g, '')
        .replace(/^0+/, '').length;
    const valueSize =
      typeof value === 'number' ? Math.ceil(digits(value) / 2) + 1 : Buffer.byteLength(String(value));
    return size + Buffer.byteLength(name) + valueSize;
  }, 0);

const partitionItems = async (companyId: string) =>
  (
    await ddb.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': meters.usageMonthKey(companyId, '').pk },
        ConsistentRead: true,
      }),
    )
  ).Items ?? [];

const empty = (): Figures => ({
  meters: Object.fromEntries(METERS.map((m) => [m, 0])),
  computeMs: Object.fromEntries(COMPUTE_CATEGORIES.map((c) => [c, 0])),
});

describe('usage meters over a whole month (injected clock)', () => {
  it('keeps every item a metered write touches within 1 KB on each of 31 days, with exact month and day figures', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    const { companyId } = tenant;
    const capacity = installCapacityMeter(dynamodbClient);
    const month = empty();
    const sizes: { day: number; largest: number }[] = [];
    let shardLargest = 0;
    for (let day = 1; day <= 31; day++) {
      const now = new Date(Date.UTC(2031, 0, day, 12, 0, 0));
      const today = empty();
      const add = (figures: Figures, kind: 'meters' | 'computeMs', name: string, amount: number) => {
        figures[kind][name] = (figures[kind][name] ?? 0) + amount;
      };
      const count = (kind: 'meters' | 'computeMs', name: string, amount: number) => {
        add(today, kind, name, amount);
        add(month, kind, name, amount);
      };
      // Metered requests: one write unit each, to one shard of the month (month and day counts together).
      for (let i = 0; i < 1 + (day % 3); i++) {
        const { units } = await capacity.measure(() =>
          meters.addToMeter(companyId, 'api_requests', 1, now, 500_000),
        );
        expect(units).toEqual({ readUnits: 0, writeUnits: 1, requests: 1 });
        count('meters', 'api_requests', 1);
      }
      // The log shipper's api compute time: one unconditional write of one unit (its family's item).
      const api = await capacity.measure(() => meters.addComputeMs(companyId, 'api', 1_234_567 + day, now));
      expect(api.units.writeUnits).toBe(1);
      count('computeMs', 'api', 1_234_567 + day);
      // Jobs finishing: the meter with the job's compute time in the transaction of the move to `done`.
      for (const [meter, seconds] of [
        ['transcode_seconds', 3_600 + day],
        ['transcription_seconds', 1_800 + day],
      ] as const) {
        const computeMs = { workers: 98_765 + day, media: 3_456_789 + day };
        const billed = await meters.limitedUsageItems(
          companyId,
          now,
          meters.billedWork(meter, seconds, computeMs),
          {
            figure: meter,
            limit: 10_000_000,
          },
        );
        // One item of the family (the job type's meter with its compute time), within 1 KB: alone, the
        // transaction is sent as its plain write (decision 0052), one unit; in a job's move to `done`, two.
        expect(billed).toHaveLength(1);
        const job = await capacity.measure(() =>
          sendTransaction(new TransactWriteCommand({ TransactItems: billed })),
        );
        expect(job.units.writeUnits).toBe(1);
        count('meters', meter, seconds);
        count('computeMs', 'workers', computeMs.workers);
        count('computeMs', 'media', computeMs.media);
      }
      await sendTransaction(
        new TransactWriteCommand({
          TransactItems: await meters.addToMeterItems(companyId, 'speech_characters', 4_096, now, 1_000_000),
        }),
      );
      count('meters', 'speech_characters', 4_096);
      await sendTransaction(
        new TransactWriteCommand({
          TransactItems: await meters.addToMeterItems(companyId, 'workflow_runs', 1, now, 10_000),
        }),
      );
      count('meters', 'workflow_runs', 1);
      await sendTransaction(
        new TransactWriteCommand({
          TransactItems: meters.addComputeMsItems(companyId, 'workflows', 29_999, now),
        }),
      );
      count('computeMs', 'workflows', 29_999);

      const items = await partitionItems(companyId);
      // No month or day item is written any more: every billed write went to its family's item.
      expect(items.filter((item) => item.sk === 'M#2031-01' || String(item.sk).startsWith('D#'))).toEqual([]);
      const isShard = (item: Record<string, unknown>) => String(item.sk).startsWith('M#2031-01#S');
      const largest = Math.max(...items.filter((item) => !isShard(item)).map(itemSize));
      expect(largest).toBeLessThanOrEqual(1024);
      // A shard holds one count per day of the month it was written on: under 400 bytes on day 31.
      shardLargest = Math.max(shardLargest, ...items.filter(isShard).map(itemSize));
      expect(shardLargest).toBeLessThanOrEqual(400);
      sizes.push({ day, largest });

      const daySnapshot = await getUsageSnapshot(companyId, 'day', now);
      expect({ meters: daySnapshot.meters, computeMs: daySnapshot.computeMs }).toEqual(today);
      const monthSnapshot = await getUsageSnapshot(companyId, 'month', now);
      expect({ meters: monthSnapshot.meters, computeMs: monthSnapshot.computeMs }).toEqual(month);
    }
    // A family item grows by one day attribute per figure a day; on day 31, with every figure of its family,
    // it is still within one write unit (checked each day above).
    const first = sizes[0]?.largest ?? 0;
    const last = sizes[30]?.largest ?? 0;
    expect(last).toBeLessThanOrEqual(1024);
    // The shards and one item per billing family written, nothing else (the totals item is written by
    // byte-changing writes only).
    const items = await partitionItems(companyId);
    expect(
      items
        .map((i) => i.sk)
        .filter((sk) => !String(sk).startsWith('M#2031-01#S'))
        .sort(),
    ).toEqual([
      'M#2031-01#api',
      'M#2031-01#speech',
      'M#2031-01#transcode',
      'M#2031-01#transcription',
      'M#2031-01#workflows',
    ]);
    // A request refused at the allowance is counted nowhere, not in its day either (the exactness of the
    // allowance over the shards is `api-requests-quota.test.ts`'s).
    const lastDay = new Date(Date.UTC(2031, 0, 31, 23, 0, 0));
    await meters.addToMeter(companyId, 'api_requests', 1, lastDay, 500_000);
    await expect(meters.addToMeter(companyId, 'api_requests', 1, lastDay, 0)).rejects.toThrow(
      meters.MeterLimitReachedError,
    );
    const refusedDay = await getUsageSnapshot(companyId, 'day', lastDay);
    expect(refusedDay.meters.api_requests).toBe(1 + (31 % 3) + 1);
    process.stdout.write(
      `usage item sizes: day 1 ${first} B, day 31 ${last} B, largest shard ${shardLargest} B\n`,
    );
  });
});
