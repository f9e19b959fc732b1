import { LOG_SHARDS } from '../types/log-entries';
import { API_REQUEST_SHARDS } from '../types/meters';

/**
 * The request rates the platform carries, derived from AWS's default quotas and from what one request
 * writes, so the edge's limits, the plan ceiling `plans put` checks and the capacity table of
 * `docs/operate.md#capacity` are one set of numbers (`test/infra/capacity.test.ts` holds them together).
 *
 * - The platform: API Gateway's account quota per region (10,000 requests a second, burst 5,000; soft, raised
 *   on request), Lambda's account concurrency (1,000 by default) over the time a request holds it, and the
 *   on-demand table's per-table throughput quota (40,000 units a second each way) over the write units of a
 *   metered request. The smallest is what saturates first.
 * - One company: the hottest partitions its requests write (the usage meter; the audit trail, one write unit
 *   per request spread over `AUDIT_PARTITIONS_PER_COMPANY` partitions; the event partition every Dynadata
 *   write adds its change event to). A plan may sell at most half of that (`PLAN_RATE_CEILING`), so one company
 *   at the highest plan's rate has twice its rate in reserve.
 * - The edge: the stage's default method throttle is the account quota (nothing stage-wide below the
 *   platform); the WAF's rate rules are backstops above the plan ceiling with room (per credential twice
 *   it, per source IP four times it: several companies may call from one address).
 */
export const AWS_DEFAULT_QUOTAS = {
  /** API Gateway, requests a second per account and region (all APIs), and its burst. */
  apiGatewayRequestsPerSecond: 10_000,
  apiGatewayBurst: 5_000,
  /** Lambda concurrent executions per account and region. */
  lambdaConcurrentExecutions: 1_000,
  /** DynamoDB on-demand: most read and write units a second of one table. */
  tableUnitsPerSecond: 40_000,
  /** DynamoDB: most write units a second of one partition (a key's item collection, before any split). */
  partitionWriteUnitsPerSecond: 1_000,
  /** DynamoDB: most write units a second of one item. */
  itemWriteUnitsPerSecond: 1_000,
} as const;

/**
 * What one metered request costs the shared resources, at volume: the Lambda time it holds (the route
 * group's function, and the authorizer, which runs on every request but answers from its warm cache) and
 * the table's write units (the meter's one write, the audit entry's one, and the route's own: a read route
 * writes nothing else, a Dynadata create 6 in its transaction, decision 0049: the item, its type's counter
 * item and its change event, each twice). Figures from `npm run bench -- cost`.
 */
export const REQUEST_FOOTPRINT = {
  lambdaMs: 50,
  readRouteWriteUnits: 2,
  writeRouteWriteUnits: 8,
} as const;

/** A transaction's write of an item under 1 KB: twice a plain write's unit. */
const TRANSACTION_WRITE_UNITS_PER_ITEM = 2;
/** Audit partitions one company's `log_entries` of a day are written across (`data/log-entries.ts`). */
export const AUDIT_PARTITIONS_PER_COMPANY = LOG_SHARDS;
/**
 * Write units one metered request spends in the company's usage partition: one `UpdateItem` of one of the
 * month's `API_REQUEST_SHARDS` shard items, under 1 KB (`data/usage-shards.ts`, decision 0037). The shards
 * share the partition key, so the partition, not an item, bounds the meter.
 */
export const METER_WRITE_UNITS_PER_REQUEST = 1;
/**
 * The share of the usage partition the request meter may take: the rest is for its other writes (a billed
 * job, synthesis or run writes its family's item in its transaction, 2 units, decision 0048; the byte total
 * of an upload, 2 (a Dynadata write counts its bytes on its type's counter item instead, decision 0049); the log shipper's compute time, 1; a request at the allowance, at most
 * one refused write per shard and process).
 */
export const METER_SHARE_OF_PARTITION = 0.5;

const platformLimits = () => {
  const q = AWS_DEFAULT_QUOTAS;
  return {
    apiGateway: q.apiGatewayRequestsPerSecond,
    lambda: Math.floor(q.lambdaConcurrentExecutions / (REQUEST_FOOTPRINT.lambdaMs / 1000)),
    tableForReads: Math.floor(q.tableUnitsPerSecond / REQUEST_FOOTPRINT.readRouteWriteUnits),
    tableForWrites: Math.floor(q.tableUnitsPerSecond / REQUEST_FOOTPRINT.writeRouteWriteUnits),
  };
};

/** The platform's request rates by what bounds them, a second. */
export const PLATFORM_LIMITS = /* @__PURE__ */ platformLimits();

/** Metered requests a second of all companies together: the smallest bound of a read-heavy mix. */
export const PLATFORM_REQUESTS_PER_SECOND = Math.min(
  PLATFORM_LIMITS.apiGateway,
  PLATFORM_LIMITS.lambda,
  PLATFORM_LIMITS.tableForReads,
);

/** One company's sustained metered requests a second, by partition. */
export const COMPANY_LIMITS = {
  /** The usage meter's partition, its share of it (`decisions/0037-sharded-api-requests-meter.md`). */
  usageMeter: Math.min(
    (AWS_DEFAULT_QUOTAS.partitionWriteUnitsPerSecond * METER_SHARE_OF_PARTITION) /
      METER_WRITE_UNITS_PER_REQUEST,
    (API_REQUEST_SHARDS * AWS_DEFAULT_QUOTAS.itemWriteUnitsPerSecond) / METER_WRITE_UNITS_PER_REQUEST,
  ),
  /** The audit trail: one write unit per request, per partition. */
  auditTrail: AWS_DEFAULT_QUOTAS.partitionWriteUnitsPerSecond * AUDIT_PARTITIONS_PER_COMPANY,
  /**
   * Writes of Dynadata items: each puts its change event (time-ordered in the company's event partition) in
   * its transaction, where a write of an item under 1 KB costs 2 units; the event partition takes 1,000 units
   * a second. Its count and bytes go to its type's counter item (decision 0049), one item per type, which
   * bounds one type's writes the same way.
   */
  dataWrites: AWS_DEFAULT_QUOTAS.partitionWriteUnitsPerSecond / TRANSACTION_WRITE_UNITS_PER_ITEM,
} as const;

export const COMPANY_REQUESTS_PER_SECOND = Math.min(...Object.values(COMPANY_LIMITS));

/** The highest rate a plan may sell: half of what one company sustains, and never above the platform's. */
export const PLAN_RATE_CEILING = {
  requestsPerSecond: Math.min(Math.floor(COMPANY_REQUESTS_PER_SECOND / 2), PLATFORM_REQUESTS_PER_SECOND),
  burst: Math.min(COMPANY_REQUESTS_PER_SECOND, AWS_DEFAULT_QUOTAS.apiGatewayBurst),
} as const;

/** The stage's default method throttle: the account's own quota, nothing below it. */
export const STAGE_THROTTLING = {
  rateLimit: AWS_DEFAULT_QUOTAS.apiGatewayRequestsPerSecond,
  burstLimit: AWS_DEFAULT_QUOTAS.apiGatewayBurst,
} as const;

/** Seconds over which the WAF's rate-based rules count (one of 60, 120, 300 or 600). */
export const WAF_RATE_WINDOW_SECONDS = 300;

/**
 * The WAF's rate-based rules, in requests per window: per credential twice the plan ceiling, per source IP
 * four times it, and per source IP without a credential (the plan catalogue, the OpenAPI document, 401
 * floods: nothing a plan sells, and no meter behind it) 5 a second.
 */
export const WAF_RATE_LIMITS = {
  perCredential: 2 * PLAN_RATE_CEILING.requestsPerSecond * WAF_RATE_WINDOW_SECONDS,
  perIp: 4 * PLAN_RATE_CEILING.requestsPerSecond * WAF_RATE_WINDOW_SECONDS,
  anonymousPerIp: 5 * WAF_RATE_WINDOW_SECONDS,
} as const;
