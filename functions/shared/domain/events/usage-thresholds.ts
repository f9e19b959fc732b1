import { type BatchEntry, getItemsByKey } from '../../data/batch';
import { companyEntry } from '../../data/companies';
import { putEventOnce } from '../../data/events';
import { companyOfUsagePartition, monthOfUsageSortKey, partitions, sortKeys } from '../../data/keys';
import { apiRequestShardEntries } from '../../data/usage-shards';
import { cachedOrLoad, createTtlCache } from '../../ttl-cache';
import { METERS, type MeterName } from '../../types/meters';
import type { PlanLimits } from '../../types/plans';
import { limitsOf } from '../company-limits';
import { alertsOf, type UsageAlerts } from '../usage-alerts';

/** The monthly allowance of each meter that has one. */
const ALLOWANCES: Partial<Record<MeterName, keyof PlanLimits>> = {
  api_requests: 'apiRequestsPerMonth',
  transcode_seconds: 'transcodeSecondsPerMonth',
  transcription_seconds: 'transcriptionSecondsPerMonth',
  speech_characters: 'speechCharactersPerMonth',
  workflow_runs: 'workflowRunsPerMonth',
};

/** A company's limits and alert thresholds, kept a minute per process and per alerts version. */
const alertingCache = createTtlCache<{ limits: PlanLimits; alerts: UsageAlerts }>(60_000, 1000);

const companyAlerting = async (companyId: string) => {
  const [company] = await getItemsByKey([companyEntry(companyId)]);
  return { limits: await limitsOf(companyId, company), alerts: alertsOf(company ?? {}) };
};

/**
 * A usage month as the dispatcher last saw it: what the month item counted of each meter before the shards and
 * the family items, each shard's `api_requests` count and the month item's alerts version. Read once (the
 * month item and its shards in one batch) and then kept up to date from the changes themselves (a shard's new
 * image holds its whole count; counts only grow within a month, so the larger of the kept and the seen count
 * is the newer), a minute per process.
 */
interface MonthSeen {
  unsharded: Partial<Record<MeterName, number>>;
  version: number;
  shards: number[];
}
const monthsSeen = createTtlCache<MonthSeen>(60_000, 1000);

const monthItemEntry = (companyId: string, month: string): BatchEntry<Record<string, unknown>> => ({
  key: { pk: partitions.usage(companyId), sk: sortKeys.usageMonth(month) },
  decode: (item) => item,
});

const metersOf = (item: Record<string, unknown> | undefined): Partial<Record<MeterName, number>> =>
  Object.fromEntries(METERS.map((meter) => [meter, Number(item?.[meter] ?? 0)]));

const loadMonth = async (companyId: string, month: string): Promise<MonthSeen> => {
  const [item, ...shards] = await getItemsByKey([
    monthItemEntry(companyId, month),
    ...apiRequestShardEntries(companyId, month),
  ]);
  return {
    unsharded: metersOf(item),
    version: Number(item?.alertsVersion ?? 0),
    shards: shards.map((shard) => (shard as { count: number } | undefined)?.count ?? 0),
  };
};

/** The month as seen, after the change of its month item, a shard or a family item (`newImage`). */
const seenAfter = async (
  companyId: string,
  sk: { month: string; shard?: number; family?: string },
  newImage: Record<string, unknown>,
  now: number,
): Promise<MonthSeen> => {
  const key = `${companyId}#${sk.month}`;
  const kept = monthsSeen.get(key, now) ?? (await loadMonth(companyId, sk.month));
  if (sk.shard !== undefined) {
    kept.shards[sk.shard] = Math.max(kept.shards[sk.shard] ?? 0, Number(newImage.api_requests ?? 0));
  } else if (sk.family === undefined) {
    const seen = metersOf(newImage);
    for (const meter of METERS)
      kept.unsharded[meter] = Math.max(kept.unsharded[meter] ?? 0, seen[meter] ?? 0);
    kept.version = Number(newImage.alertsVersion ?? kept.version);
  }
  monthsSeen.set(key, kept, now);
  return kept;
};

/** Thresholds already raised (or found raised), so a month past one writes no marker per request. */
const raisedCache = createTtlCache<true>(3_600_000, 10_000);

/** A meter's month figure before and after a change, and the alerts version it is checked against. */
interface Reading {
  meter: MeterName;
  before: number;
  used: number;
}

/** Thresholds a usage month's change passed: `usage.threshold_reached` for each, once. */
export const raiseUsageThresholds = async (
  change: { newImage?: Record<string, unknown>; oldImage?: Record<string, unknown> },
  now = new Date(),
): Promise<number> => {
  const { newImage, oldImage = {} } = change;
  const companyId = companyOfUsagePartition(String(newImage?.pk ?? ''));
  const sk = monthOfUsageSortKey(String(newImage?.sk ?? ''));
  if (!newImage || !companyId || sk === undefined) return 0;
  const { month } = sk;
  const grown = (Object.keys(ALLOWANCES) as MeterName[]).filter(
    (m) => Number(newImage[m] ?? 0) > Number(oldImage[m] ?? 0),
  );
  // A change of the company's thresholds stamps the month item (`alertsVersion`): a new stamp is a new key.
  const stamp = sk.shard === undefined && sk.family === undefined ? newImage.alertsVersion : undefined;
  const kept = monthsSeen.get(`${companyId}#${month}`, now.getTime());
  if (grown.length === 0) {
    if (kept && stamp !== undefined) kept.version = Number(stamp);
    return 0;
  }
  const seen = await seenAfter(companyId, sk, newImage, now.getTime());
  const version = seen.version;
  const readings: Reading[] = grown.map((meter) => {
    if (meter === 'api_requests') {
      // `before` is not known for the sum of the shards: a threshold is passed when the sum is at its mark
      // and was not raised yet (the marker written with the event keeps it once).
      const used = (seen.unsharded.api_requests ?? 0) + seen.shards.reduce((sum, n) => sum + n, 0);
      return { meter, before: Number.NEGATIVE_INFINITY, used };
    }
    // A family item's totals count from the families on: what the month item counted before is added.
    const before = sk.family === undefined ? 0 : (seen.unsharded[meter] ?? 0);
    return {
      meter,
      before: before + Number(oldImage[meter] ?? 0),
      used: before + Number(newImage[meter] ?? 0),
    };
  });
  const alerting = await cachedOrLoad(alertingCache, `${companyId}#${version}`, now.getTime(), () =>
    companyAlerting(companyId),
  );
  if (!alerting) return 0;
  const { limits, alerts } = alerting;
  let raised = 0;
  for (const { meter, before, used } of readings) {
    const limit = Number(limits[ALLOWANCES[meter] as keyof PlanLimits]);
    for (const threshold of alerts[meter]) {
      const mark = (limit * threshold) / 100;
      const marker = `${month}#${meter}#${threshold}`;
      if (!(limit > 0 && before < mark && used >= mark)) continue;
      if (raisedCache.get(`${companyId}#${marker}`, now.getTime())) continue;
      const ok = await putEventOnce(marker, {
        companyId,
        type: 'usage.threshold_reached',
        resourceId: `usage:${meter}`,
        data: { meter, threshold, month, used, limit },
        now,
      });
      raisedCache.set(`${companyId}#${marker}`, true, now.getTime());
      if (ok) raised++;
    }
  }
  return raised;
};
