import { describe, expect, it } from 'vitest';
import { createTenant } from './support';

const { ddb, tableName } = await import('../../functions/shared/data/client');
const { PutCommand, TransactWriteCommand } = await import('@aws-sdk/lib-dynamodb');
const meters = await import('../../functions/shared/data/usage-meters');
const { sendTransaction } = await import('../../functions/shared/data/transactions');
const { getUsageSnapshot } = await import('../../functions/shared/domain/usage');
const { companyLimits } = await import('../../functions/shared/domain/company-limits');
const { raiseUsageThresholds } = await import('../../functions/shared/domain/events/usage-thresholds');

/**
 * Figures counted in the month and day items before the billing families (decision 0048) keep counting: every
 * reader adds them to the family items, and a limited write takes them off the allowance.
 */
const now = new Date(Date.UTC(2026, 11, 15, 12));

const seedOldItems = async (companyId: string) => {
  const month = meters.usageMonthKey(companyId, '2026-12');
  const day = meters.usageDayKey(companyId, '2026-12-15');
  await ddb.send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...month,
        entity: 'usage_month',
        workflow_runs: 7,
        transcode_seconds: 100,
        'compute_ms#media': 5_000,
      },
    }),
  );
  await ddb.send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...day,
        entity: 'usage_day',
        workflow_runs: 2,
        transcode_seconds: 40,
        'compute_ms#media': 2_000,
      },
    }),
  );
};

const run = async (companyId: string, limit: number) =>
  sendTransaction(
    new TransactWriteCommand({
      TransactItems: await meters.addToMeterItems(companyId, 'workflow_runs', 1, now, limit),
    }),
  );

describe('usage counted before the billing families', () => {
  it('is added by every reader, and taken off the allowance of a limited write', async () => {
    const { companyId } = await createTenant();
    await seedOldItems(companyId);
    // 7 runs counted before: an allowance of 10 leaves 3.
    for (let i = 0; i < 3; i++) await run(companyId, 10);
    await expect(run(companyId, 10)).rejects.toThrow();
    await sendTransaction(
      new TransactWriteCommand({
        TransactItems: meters.usageItems(
          companyId,
          now,
          meters.billedWork('transcode_seconds', 60, { media: 1_000, workers: 10 }),
        ),
      }),
    );

    const month = await getUsageSnapshot(companyId, 'month', now);
    expect(month.meters).toMatchObject({ workflow_runs: 10, transcode_seconds: 160 });
    expect(month.computeMs).toMatchObject({ media: 6_000, workers: 10 });
    const day = await getUsageSnapshot(companyId, 'day', now);
    expect(day.meters).toMatchObject({ workflow_runs: 5, transcode_seconds: 100 });
    expect(day.computeMs).toMatchObject({ media: 3_000, workers: 10 });

    const byDay = await meters.readUsageSeries(companyId, 'day', '2026-12-14', '2026-12-15');
    expect([...byDay.keys()]).toEqual(['2026-12-15']);
    expect(byDay.get('2026-12-15')?.meters).toEqual(day.meters);
    expect(byDay.get('2026-12-15')?.computeMs).toEqual(day.computeMs);
    const byMonth = await meters.readUsageSeries(companyId, 'month', '2026-12', '2026-12');
    expect(byMonth.get('2026-12')?.meters).toEqual(month.meters);
    expect(byMonth.get('2026-12')?.computeMs).toEqual(month.computeMs);
  });

  it('counts toward the thresholds of a family item change', async () => {
    const { companyId } = await createTenant();
    await seedOldItems(companyId);
    const limit = (await companyLimits(companyId)).workflowRunsPerMonth;
    const mark = Math.ceil((limit * 80) / 100);
    expect(mark).toBeGreaterThan(7);
    const key = { pk: meters.usageMonthKey(companyId, '').pk, sk: 'M#2026-12#workflows' };
    // The family item alone stays below 80 %: only with the 7 counted before does it reach it.
    const change = (from: number, to: number) =>
      raiseUsageThresholds(
        { oldImage: { ...key, workflow_runs: from }, newImage: { ...key, workflow_runs: to } },
        now,
      );
    expect(await change(mark - 9, mark - 8)).toBe(0);
    expect(await change(mark - 8, mark - 7)).toBe(1);
    expect(await change(mark - 7, mark - 6)).toBe(0);
  });
});
