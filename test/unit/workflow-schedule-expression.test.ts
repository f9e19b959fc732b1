import { describe, expect, it } from 'vitest';
import {
  nextScheduleTimes,
  parseScheduleExpression,
  scheduleProblem,
} from '../../functions/shared/domain/workflows/schedule-expression';
import { triggerProblems } from '../../functions/shared/domain/workflows/trigger-definition';
import { triggeredRunId } from '../../functions/shared/domain/workflows/triggered-runs';

const now = new Date('2026-11-25T18:02:00Z'); // a Wednesday

const next = (expression: string, count = 3) => {
  const parsed = parseScheduleExpression(expression);
  if ('problem' in parsed) throw new Error(parsed.problem);
  return nextScheduleTimes(parsed, now, count).map((d) => d.toISOString());
};

describe('workflow schedule expressions (EventBridge Scheduler syntax, UTC)', () => {
  it('reads rates in minutes, hours and days, singular only for 1', () => {
    expect(next('rate(15 minutes)', 2)).toEqual(['2026-11-25T18:17:00.000Z', '2026-11-25T18:32:00.000Z']);
    expect(next('rate(1 hour)', 1)).toEqual(['2026-11-25T19:02:00.000Z']);
    expect(next('rate(2 days)', 1)).toEqual(['2026-11-27T18:02:00.000Z']);
    expect(scheduleProblem('rate(1 hours)', now)).toMatch(/singular/);
    expect(scheduleProblem('rate(2 hour)', now)).toMatch(/singular/);
    expect(scheduleProblem('rate(0 minutes)', now)).toBeDefined();
  });

  it('reads six-field cron with ? and weekdays counted from SUN = 1, in UTC', () => {
    expect(next('cron(0 9 * * ? *)', 2)).toEqual(['2026-11-26T09:00:00.000Z', '2026-11-27T09:00:00.000Z']);
    // 2 = Monday, as in EventBridge (1 = Sunday).
    expect(next('cron(30 8 ? * 2 *)', 1)).toEqual(['2026-11-30T08:30:00.000Z']);
    expect(next('cron(0 9 ? * MON-FRI *)', 3)).toEqual([
      '2026-11-26T09:00:00.000Z',
      '2026-11-27T09:00:00.000Z',
      '2026-11-30T09:00:00.000Z',
    ]);
    expect(next('cron(0/15 * * * ? *)', 2)).toEqual(['2026-11-25T18:15:00.000Z', '2026-11-25T18:30:00.000Z']);
  });

  it('reads L, W and # as EventBridge does', () => {
    expect(next('cron(0 10 L * ? *)', 2)).toEqual(['2026-11-30T10:00:00.000Z', '2026-12-31T10:00:00.000Z']);
    // The last Friday, and the third Friday, of the month.
    expect(next('cron(0 10 ? * 6L *)', 1)).toEqual(['2026-11-27T10:00:00.000Z']);
    expect(next('cron(0 10 ? * 6#3 *)', 1)).toEqual(['2026-12-18T10:00:00.000Z']);
    // The weekday nearest the 15th: 15 Nov 2026 is a Sunday → Monday the 16th... already past: December's.
    expect(next('cron(0 10 15W * ? *)', 1)).toEqual(['2026-12-15T10:00:00.000Z']);
    expect(next('cron(0 10 1 1 ? 2030)', 1)).toEqual(['2030-01-01T10:00:00.000Z']);
  });

  it('refuses what EventBridge refuses, and schedules less than 5 minutes apart', () => {
    expect(scheduleProblem('cron(0 9 * * 2 *)', now)).toMatch(/exactly one of day-of-month and day-of-week/);
    expect(scheduleProblem('cron(0 9 * *)', now)).toMatch(/6 fields/);
    expect(scheduleProblem('cron(0 25 * * ? *)', now)).toBeDefined();
    expect(scheduleProblem('cron(0 9 * * ? 2020)', now)).toMatch(/no run in the future/);
    expect(scheduleProblem('at(2026-12-01T00:00:00)', now)).toMatch(/rate\(/);
    expect(scheduleProblem('rate(4 minutes)', now)).toMatch(/5 minutes apart/);
    expect(scheduleProblem('cron(0/2 * * * ? *)', now)).toMatch(/5 minutes apart/);
    expect(scheduleProblem('cron(0,1 9 * * ? *)', now)).toMatch(/5 minutes apart/);
    expect(scheduleProblem('cron(58 8,9 * * ? *)', now)).toBeUndefined();
    expect(scheduleProblem('rate(5 minutes)', now)).toBeUndefined();
  });
});

describe('workflow triggers in a definition', () => {
  const steps = [{ id: 's', action: 'actions/speech/spoken-text', with: { markdown: 'x' } }];

  it('accepts events and a schedule, and points at each problem', async () => {
    expect(
      await triggerProblems(
        { steps, on: { events: ['transcode.done'], schedule: 'cron(0 9 * * ? *)' } },
        now,
      ),
    ).toEqual([]);
    const problems = await triggerProblems(
      { steps, on: { events: ['ping', 'transcode.done', 'transcode.done'], schedule: 5, every: 'day' } },
      now,
    );
    expect(problems.map((p) => p.pointer).sort()).toEqual([
      '/on/events/0',
      '/on/events/2',
      '/on/every',
      '/on/schedule',
    ]);
    expect((await triggerProblems({ steps, on: {} }, now)).map((p) => p.pointer)).toEqual(['/on']);
    expect((await triggerProblems({ steps, on: { events: [] } }, now)).map((p) => p.pointer)).toEqual([
      '/on/events',
    ]);
  });

  it('refuses a trigger on a workflow whose input schema does not accept {}', async () => {
    const input = { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] };
    const problems = await triggerProblems({ steps, input, on: { events: ['transcode.done'] } }, now);
    expect(problems).toEqual([{ pointer: '/on', message: expect.stringMatching(/input \{\}/) }]);
  });
});

describe('triggered run ids', () => {
  it('are the same for the same trigger, differ per workflow, and sort by the trigger time', () => {
    const at = Date.parse('2026-11-25T18:00:00Z');
    const id = triggeredRunId(at, 'evt_1#a');
    expect(id).toMatch(/^wr_[0-9a-z]{26}$/);
    expect(triggeredRunId(at, 'evt_1#a')).toBe(id);
    expect(triggeredRunId(at, 'evt_1#b')).not.toBe(id);
    expect(triggeredRunId(at + 1, 'evt_0#a') > id).toBe(true);
  });
});
