import { readUsageSeries, usageFigures } from '../data/usage-meters';
import { ValidationError } from '../errors';

/**
 * The usage series of `GET /v1/usage/history`: the figures of each UTC day or month from `from` to `to`
 * (inclusive), the same meters and compute time as the snapshot, one point per period whether or not
 * anything was counted in it (a dense series: a chart needs no gap filling). At most 366 days or 36 months, read
 * with one query over the company's usage partition.
 */
export const USAGE_HISTORY_MAX_POINTS = { day: 366, month: 36 } as const;

export type UsageGranularity = 'day' | 'month';

export interface UsageHistoryRequest {
  granularity: UsageGranularity;
  from: string;
  to: string;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const MONTH = /^(\d{4})-(\d{2})$/;

/** The start of the period a `yyyy-mm-dd` or `yyyy-mm` names, if it is a real one. */
const startOf = (granularity: UsageGranularity, period: string): Date | undefined => {
  const match = (granularity === 'day' ? DAY : MONTH).exec(period);
  if (!match) return undefined;
  const [year, month, day = 1] = match.slice(1).map(Number) as [number, number, number?];
  const start = new Date(Date.UTC(year, month - 1, day));
  return start.getUTCFullYear() === year && start.getUTCMonth() === month - 1 && start.getUTCDate() === day
    ? start
    : undefined;
};

const next = (granularity: UsageGranularity, start: Date): Date =>
  granularity === 'day'
    ? new Date(start.getTime() + 86_400_000)
    : new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));

const nameOf = (granularity: UsageGranularity, start: Date): string =>
  start.toISOString().slice(0, granularity === 'day' ? 10 : 7);

/** The periods of the request, in order; every problem with it at its pointer. */
export const periodsOf = ({ granularity, from, to }: UsageHistoryRequest): Date[] => {
  const shape = granularity === 'day' ? '`yyyy-mm-dd`, a real UTC date' : '`yyyy-mm`, a real month';
  const first = startOf(granularity, from);
  const last = startOf(granularity, to);
  const errors = [
    ...(first ? [] : [{ pointer: '/query/from', message: `must be ${shape}` }]),
    ...(last ? [] : [{ pointer: '/query/to', message: `must be ${shape}` }]),
  ];
  if (first && last && last < first)
    errors.push({ pointer: '/query/to', message: 'must not be before from' });
  if (errors.length > 0 || !first || !last) throw new ValidationError(errors);
  const max = USAGE_HISTORY_MAX_POINTS[granularity];
  const periods: Date[] = [];
  for (let start = first; start <= last; start = next(granularity, start)) {
    if (periods.length === max) {
      throw new ValidationError([
        { pointer: '/query/to', message: `must be at most ${max} ${granularity}s after from, from included` },
      ]);
    }
    periods.push(start);
  }
  return periods;
};

export const getUsageHistory = async (companyId: string, request: UsageHistoryRequest) => {
  const periods = periodsOf(request);
  const { granularity } = request;
  const counted = await readUsageSeries(companyId, granularity, request.from, request.to);
  const nothing = usageFigures(undefined, undefined);
  return {
    granularity,
    from: request.from,
    to: request.to,
    points: periods.map((start) => {
      const period = nameOf(granularity, start);
      const { meters, computeMs } = counted.get(period) ?? nothing;
      return {
        period,
        start: start.toISOString(),
        end: next(granularity, start).toISOString(),
        meters,
        computeMs,
      };
    }),
  };
};
