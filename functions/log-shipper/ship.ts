import { getCompany } from '../shared/data/companies';
import { type LogEntry, putLogEntries } from '../shared/data/log-entries';
import { getPlan } from '../shared/data/plans';
import { addComputeMs } from '../shared/data/usage-meters';
import { resolveLimits } from '../shared/domain/limits';
import type { AccessLogRecord } from '../shared/http/access-log';
import { cachedOrLoad, createTtlCache } from '../shared/ttl-cache';

const DEFAULT_RETENTION_DAYS = 30;
const retentionCache = createTtlCache<number>(300_000);

const retentionDays = async (companyId: string, now: number): Promise<number> =>
  (await cachedOrLoad(retentionCache, companyId, now, async () => {
    const company = await getCompany(companyId);
    const plan = company ? await getPlan(company.planId) : undefined;
    return company && plan ? resolveLimits(plan.limits, company).logRetentionDays : undefined;
  })) ?? DEFAULT_RETENTION_DAYS;

const num = (value: unknown): number | null => {
  const n = typeof value === 'number' ? value : Number(value);
  return value === null || value === undefined || value === '' || value === '-' || !Number.isFinite(n)
    ? null
    : n;
};
const str = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' && value !== '-' ? value : null;

/**
 * Turns gateway access-log records into `log_entries` items (only requests of an authenticated company) and
 * adds each company's integration time to its `api` compute meter. Runs off the request path: fed by the
 * CloudWatch Logs subscription on AWS and by the local gateway's batches locally.
 */
export const shipAccessLogRecords = async (records: AccessLogRecord[], now = Date.now()): Promise<number> => {
  const entries: Parameters<typeof putLogEntries>[0] = [];
  const computeByCompany = new Map<string, number>();
  for (const record of records) {
    const companyId = str(record.companyId);
    const requestId = str(record.requestId);
    if (!companyId || !requestId) continue;
    const timeEpochMs = num(record.timeEpochMs) ?? now;
    const entry: LogEntry = {
      requestId,
      time: new Date(timeEpochMs).toISOString(),
      method: str(record.method) ?? '',
      path: str(record.path) ?? '',
      route: str(record.route),
      status: num(record.status) ?? 0,
      latencyMs: num(record.latencyMs),
      authMethod: str(record.authMethod),
      keyId: str(record.keyId),
      sourceIp: str(record.sourceIp),
      userAgent: str(record.userAgent),
    };
    const days = await retentionDays(companyId, now);
    entries.push({
      companyId,
      entry,
      timeEpochMs,
      expiresAt: Math.floor(timeEpochMs / 1000) + days * 86_400,
    });
    const compute = num(record.integrationLatencyMs);
    if (compute) computeByCompany.set(companyId, (computeByCompany.get(companyId) ?? 0) + compute);
  }
  await putLogEntries(entries);
  for (const [companyId, ms] of computeByCompany) await addComputeMs(companyId, 'api', ms, new Date(now));
  return entries.length;
};
