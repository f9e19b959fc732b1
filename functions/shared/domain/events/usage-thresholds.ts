import { type BatchEntry, getItemsByKey } from '../../data/batch';
import { companyEntry } from '../../data/companies';
import { putEventOnce } from '../../data/events';
import { companyOfUsagePartition, monthOfUsageSortKey, partitions, sortKeys } from '../../data/keys';
import { apiRequestShardEntries } from '../../data/usage-shards';
import { cachedOrLoad, createTtlCache } from '../../ttl-cache';
import type { MeterName } from '../../types/meters';
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
 * A month's `api_requests` as the dispatcher last saw it: what the month item counted before the shards, each
 * shard's count and the month item's alerts version. Read once (the month item and its shards in one batch)
 * and then kept up to date from the changes themselves (a shard's new image holds its whole count; counts
 * only grow within a month, so the larger of the kept and the seen count is the newer), a minute per process.
 */
interface MonthApiRequests {
  unsharded: number;
  version: number;
  shards: number[];
}
const monthApiRequests = createTtlCache<MonthApiRequests>(60_000, 1000);

const monthItemEntry = (companyId: string, month: string): BatchEntry<Record<string, unknown>> => ({
  key: { pk: partitions.usage(companyId), sk: sortKeys.usageMonth(month) },
  decode: (item) => item,
});

const loadMonthApiRequests = async (companyId: string, month: string): Promise<MonthApiRequests> => {
  const [item, ...shards] = await getItemsByKey([
    monthItemEntry(companyId, month),
    ...apiRequestShardEntries(companyId, month),
  ]);
  return {
    unsharded: Number(item?.api_requests ?? 0),
    version: Number(item?.alertsVersion ?? 0),
    shards: shards.map((shard) => (shard as { count: number } | undefined)?.count ?? 0),
  };
};

/** Thresholds already raised (or found raised), so a month past one writes no marker per request. */
const raisedCache = createTtlCache<true>(3_600_000, 10_000);

/** A meter's month figure before and after a change, and the alerts version it is checked against. */
interface Reading {
  meter: MeterName;
  before: number;
  used: number;
}

/**
 * The month's `api_requests` after a change of its month item or of one of its shards: the sum of the month
 * item's and the shards' counts as last seen (possibly a little ahead of the change: a later change then adds
 * nothing). `before` is not known for the sum, so a threshold is passed when the sum is at its mark and it
 * was not raised yet (the marker written with the event keeps it once).
 */
const apiRequestsReading = async (
  companyId: string,
  month: string,
  shard: number | undefined,
  newImage: Record<string, unknown>,
  now: number,
): Promise<{ used: number; version: number }> => {
  const key = `${companyId}#${month}`;
  const kept = monthApiRequests.get(key, now) ?? (await loadMonthApiRequests(companyId, month));
  const count = Number(newImage.api_requests ?? 0);
  if (shard === undefined) {
    kept.unsharded = Math.max(kept.unsharded, count);
    kept.version = Number(newImage.alertsVersion ?? kept.version);
  } else kept.shards[shard] = Math.max(kept.shards[shard] ?? 0, count);
  monthApiRequests.set(key, kept, now);
  return { used: kept.unsharded + kept.shards.reduce((sum, n) => sum + n, 0), version: kept.version };
};

/** Thresholds a usage month's change passed: `usage.threshold_reached` for each, once. */
export const raiseUsageThresholds = async (
  change: { newImage?: Record<string, unknown>; oldImage?: Record<string, unknown> },
  now = new Date(),
): Promise<number> => {
  const { newImage, oldImage = {} } = change;
  const companyId = companyOfUsagePartition(String(newImage?.pk ?? ''));
  const sk = monthOfUsageSortKey(String(newImage?.sk ?? ''));
  if (!newImage || !companyId || sk === undefined) return 0;
  const { month, shard } = sk;
  const grown = (Object.keys(ALLOWANCES) as MeterName[]).filter(
    (m) => Number(newImage[m] ?? 0) > Number(oldImage[m] ?? 0),
  );
  if (grown.length === 0) return 0;
  // A change of the company's thresholds stamps the month item (`alertsVersion`): a new stamp is a new key.
  let version = Number(newImage.alertsVersion ?? 0);
  const readings: Reading[] = [];
  for (const meter of grown) {
    if (meter !== 'api_requests') {
      readings.push({ meter, before: Number(oldImage[meter] ?? 0), used: Number(newImage[meter] ?? 0) });
      continue;
    }
    const sum = await apiRequestsReading(companyId, month, shard, newImage, now.getTime());
    version = sum.version;
    readings.push({ meter, before: Number.NEGATIVE_INFINITY, used: sum.used });
  }
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
