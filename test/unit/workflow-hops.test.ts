import { describe, expect, it } from 'vitest';
import { httpRequestAction } from '../../functions/shared/domain/workflows/actions/http-request';
import { AppError } from '../../functions/shared/errors';
import { MAX_WORKFLOW_HOP, workflowHopOf } from '../../functions/shared/workflow-hops';

const codeOf = (headers: Record<string, string>): string | undefined => {
  try {
    workflowHopOf(headers);
    return undefined;
  } catch (error) {
    return error instanceof AppError ? error.code : 'not an AppError';
  }
};

describe('workflow hops', () => {
  it('reads an absent header as hop 0 and accepts every hop up to the limit', () => {
    expect(workflowHopOf({})).toBe(0);
    for (let hop = 0; hop <= MAX_WORKFLOW_HOP; hop++)
      expect(workflowHopOf({ 'x-workflow-hop': String(hop) })).toBe(hop);
  });

  it('refuses a hop above the limit with hop_limit_exceeded (400)', () => {
    expect(codeOf({ 'x-workflow-hop': String(MAX_WORKFLOW_HOP + 1) })).toBe('hop_limit_exceeded');
    expect(codeOf({ 'x-workflow-hop': '0004' })).toBe('hop_limit_exceeded');
    expect(codeOf({ 'x-workflow-hop': '999999' })).toBe('hop_limit_exceeded');
    expect(new AppError('hop_limit_exceeded', 'x').status).toBe(400);
  });

  it('refuses a malformed hop with validation_failed at /headers/x-workflow-hop', () => {
    for (const value of ['', '-1', '1.5', 'two', '0x1', '1, 2', '1e3', '1234567']) {
      expect(codeOf({ 'x-workflow-hop': value }), JSON.stringify(value)).toBe('validation_failed');
    }
    const refusal = (() => {
      try {
        workflowHopOf({ 'x-workflow-hop': 'two' });
      } catch (error) {
        return error as AppError;
      }
    })();
    expect(refusal?.errors).toEqual([{ pointer: '/headers/x-workflow-hop', message: expect.any(String) }]);
  });

  it('refuses the hop header among the headers of an HTTP step, in any case', () => {
    for (const name of ['x-workflow-hop', 'X-Workflow-Hop']) {
      const parsed = httpRequestAction.input.safeParse({
        method: 'GET',
        url: 'https://hooks.example.com/',
        headers: { accept: 'application/json', [name]: '0' },
      });
      expect(parsed.success, name).toBe(false);
      expect(parsed.error?.issues[0]?.path).toEqual(['headers', name]);
    }
    expect(
      httpRequestAction.input.safeParse({ method: 'GET', url: 'https://h.example.com/', headers: { a: 'b' } })
        .success,
    ).toBe(true);
  });
});
