import { Cron } from 'croner';

/**
 * Schedule expressions of workflow triggers, with EventBridge Scheduler's syntax and meaning, in UTC:
 * `rate(<value> <unit>)` (unit `minute(s)`, `hour(s)`, `day(s)`; singular exactly when the value is 1) and
 * `cron(<minutes> <hours> <day-of-month> <month> <day-of-week> <year>)`, where one of day-of-month and
 * day-of-week is `?`, day-of-week counts 1 = SUN to 7 = SAT, and `L`, `W`, `#` mean what they mean there.
 * Cron fields are checked here, then evaluated by croner (Quartz weekday numbering, a year field, `L`,
 * `W`, `#`), which EventBridge's cron is a dialect of. Two runs of a workflow's schedule are at least
 * `MIN_SCHEDULE_GAP_MINUTES` apart. A rate schedule counts from the moment it is created, as EventBridge's.
 */
export const MIN_SCHEDULE_GAP_MINUTES = 5;

export type ScheduleExpression =
  | { kind: 'rate'; everyMs: number }
  | { kind: 'cron'; next: (after: Date) => Date | undefined };

const RATE = /^rate\((\d{1,6}) (minute|minutes|hour|hours|day|days)\)$/;
const CRON = /^cron\((.*)\)$/;
const UNIT_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;

const MONTHS = 'JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC';
const DAYS = 'SUN|MON|TUE|WED|THU|FRI|SAT';
const list = (item: string) => new RegExp(`^(?:${item})(?:,(?:${item}))*$`);
const range = (value: string) => `(?:${value})(?:-(?:${value}))?(?:/\\d{1,4})?`;
/** The characters each field allows (EventBridge's table); values beyond the ranges are croner's to refuse. */
const FIELDS: { name: string; pattern: RegExp }[] = [
  { name: 'minutes', pattern: list(`\\*(?:/\\d{1,2})?|${range('\\d{1,2}')}`) },
  { name: 'hours', pattern: list(`\\*(?:/\\d{1,2})?|${range('\\d{1,2}')}`) },
  {
    name: 'day-of-month',
    pattern:
      /^(?:\?|L|\d{1,2}W|(?:\*(?:\/\d{1,2})?|\d{1,2}(?:-\d{1,2})?(?:\/\d{1,2})?)(?:,(?:\d{1,2}(?:-\d{1,2})?(?:\/\d{1,2})?))*)$/,
  },
  { name: 'month', pattern: list(`\\*(?:/\\d{1,2})?|${range(`\\d{1,2}|${MONTHS}`)}`) },
  {
    name: 'day-of-week',
    pattern: new RegExp(
      `^(?:\\?|[1-7]L|L|[1-7]#[1-5]|(?:${DAYS})#[1-5]|(?:\\*|${range(`[1-7]|${DAYS}`)})(?:,(?:${range(`[1-7]|${DAYS}`)}))*)$`,
    ),
  },
  { name: 'year', pattern: list(`\\*(?:/\\d{1,3})?|${range('\\d{4}')}`) },
];

/** Parses an expression, or answers why it is not one. */
export const parseScheduleExpression = (text: string): ScheduleExpression | { problem: string } => {
  const rate = RATE.exec(text);
  if (rate) {
    const value = Number(rate[1]);
    const unit = (rate[2] ?? '').replace(/s$/, '') as keyof typeof UNIT_MS;
    if (value < 1) return { problem: 'a rate must be at least 1' };
    if ((value === 1) !== !(rate[2] ?? '').endsWith('s'))
      return { problem: 'the unit is singular for a value of 1 and plural otherwise' };
    return { kind: 'rate', everyMs: value * UNIT_MS[unit] };
  }
  const cron = CRON.exec(text);
  if (!cron) return { problem: 'must be rate(<value> <unit>) or cron(<6 fields>)' };
  const fields = (cron[1] ?? '').trim().split(/\s+/);
  if (fields.length !== 6)
    return { problem: 'a cron expression has 6 fields: minutes hours day-of-month month day-of-week year' };
  for (const [i, field] of FIELDS.entries()) {
    if (!field.pattern.test((fields[i] ?? '').toUpperCase()))
      return { problem: `the ${field.name} field is not valid` };
  }
  const [, , dom, , dow] = fields;
  if ((dom === '?') === (dow === '?'))
    return { problem: 'exactly one of day-of-month and day-of-week must be ?' };
  try {
    const pattern = new Cron(`0 ${fields.join(' ')}`.toUpperCase(), {
      mode: '7-part',
      alternativeWeekdays: true,
      sloppyRanges: true,
      timezone: 'UTC',
      paused: true,
    });
    return { kind: 'cron', next: (after) => pattern.nextRun(after) ?? undefined };
  } catch (error) {
    return { problem: (error as Error).message.replace(/^CronPattern: /, '') };
  }
};

/** The next `count` times after `after` (a rate counts from `after` itself), none past `until`. */
export const nextScheduleTimes = (
  expression: ScheduleExpression,
  after: Date,
  count: number,
  until = Number.POSITIVE_INFINITY,
): Date[] => {
  const times: Date[] = [];
  let at = after;
  for (let i = 0; i < count; i++) {
    const next =
      expression.kind === 'rate' ? new Date(at.getTime() + expression.everyMs) : expression.next(at);
    if (!next || next.getTime() > until) break;
    times.push(next);
    at = next;
  }
  return times;
};

/**
 * The runs of a cron schedule compared to find the shortest gap between two: at most this many, within a
 * year and a month (every day-of-month and month pattern; a few days of a schedule every 5 minutes, whose
 * minutes and hours repeat daily).
 */
const GAP_SAMPLE = 1000;
const GAP_HORIZON_MS = 400 * 86_400_000;

/**
 * Why a schedule expression cannot be a workflow's schedule, or undefined: it must parse, run again in the
 * future, and its runs be at least `MIN_SCHEDULE_GAP_MINUTES` apart (a cron schedule is checked over its
 * next runs from `now`, which cover every minute and hour of its pattern).
 */
export const scheduleProblem = (text: string, now: Date): string | undefined => {
  const parsed = parseScheduleExpression(text);
  if ('problem' in parsed) return parsed.problem;
  const minGapMs = MIN_SCHEDULE_GAP_MINUTES * 60_000;
  if (parsed.kind === 'rate') {
    return parsed.everyMs < minGapMs
      ? `runs must be at least ${MIN_SCHEDULE_GAP_MINUTES} minutes apart`
      : undefined;
  }
  const times = nextScheduleTimes(parsed, now, GAP_SAMPLE, now.getTime() + GAP_HORIZON_MS);
  if (times.length === 0) return 'the schedule has no run in the future';
  for (let i = 1; i < times.length; i++) {
    const gap = (times[i]?.getTime() ?? 0) - (times[i - 1]?.getTime() ?? 0);
    if (gap < minGapMs) return `runs must be at least ${MIN_SCHEDULE_GAP_MINUTES} minutes apart`;
  }
  return undefined;
};
