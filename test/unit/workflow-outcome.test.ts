import { describe, expect, it } from 'vitest';
import { computeOutcome } from '../../functions/shared/domain/workflows/outcome';
import type { StepLog } from '../../functions/shared/types/workflows';

const log = (step: string, status: 'succeeded' | 'failed', handled?: boolean): StepLog => ({
  step,
  action: 'actions/x',
  status,
  startedAt: '2026-01-01T00:00:00.000Z',
  durationMs: 1,
  ...(status === 'failed' ? { code: `${step}_code`, userMessage: `${step} failed` } : {}),
  ...(handled ? { handled: true } : {}),
});

describe('workflow run outcome', () => {
  it('all steps ok: success', () => {
    expect(computeOutcome([log('a', 'succeeded'), log('b', 'succeeded')])).toEqual({
      status: 'success',
      ok: true,
      failedSteps: [],
    });
  });

  it('only allowed failures: success, ok, reported with handled: true', () => {
    expect(computeOutcome([log('a', 'failed', true), log('b', 'succeeded')])).toEqual({
      status: 'success',
      ok: true,
      failedSteps: [{ step: 'a', code: 'a_code', userMessage: 'a failed', handled: true }],
    });
  });

  it('any unhandled failure: partial, not ok, workflow_steps_failed', () => {
    const outcome = computeOutcome([log('a', 'failed', true), log('b', 'failed'), log('c', 'succeeded')]);
    expect(outcome).toMatchObject({ status: 'partial', ok: false, error: { code: 'workflow_steps_failed' } });
    expect(outcome.failedSteps).toEqual([
      { step: 'a', code: 'a_code', userMessage: 'a failed', handled: true },
      { step: 'b', code: 'b_code', userMessage: 'b failed' },
    ]);
  });

  it('no steps ran: success', () => {
    expect(computeOutcome([]).status).toBe('success');
  });
});
