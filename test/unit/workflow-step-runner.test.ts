import { describe, expect, it } from 'vitest';
import type { ActionContext } from '../../functions/shared/domain/workflows/actions';
import { runStep } from '../../functions/shared/domain/workflows/step-runner';
import { registerWorkflowActions } from '../../functions/shared/operations/workflow-actions';

registerWorkflowActions();

const ctx = (scopes: string[]): ActionContext => ({
  companyId: 'co_1',
  runId: 'wr_1',
  callerScopes: scopes,
  caller: { source: 'key_1' },
  sync: true,
  hop: 0,
  now: new Date(),
  limits: () => Promise.reject(new Error('not used')),
});
const scope = { input: { md: '**Hi** there' }, runId: 'wr_1', steps: {} };
const spoken = { id: 'say', action: 'actions/speech/spoken-text', with: { markdown: '{{ input.md }}' } };

describe('workflow step runner', () => {
  it('fails an HTTP step with invalid_header naming the header when a reference makes a header bad', async () => {
    const call = (headers: unknown) => ({
      id: 'call',
      action: 'actions/http/request',
      with: { method: 'GET', url: 'https://h.example.com/', headers },
    });
    const cases: [unknown, Record<string, unknown>, string][] = [
      [{ 'x-v': '{{ input.v }}' }, { v: 'a\r\nInjected: 1' }, 'x-v'],
      [{ 'x-v': 'pre {{ input.v }}' }, { v: 'nul\u0000' }, 'x-v'],
      ['{{ input.h }}', { h: { 'bad header(': 'v' } }, 'bad header('],
      ['{{ input.h }}', { h: { 'x-line\n': 'v' } }, 'x-line\n'],
    ];
    for (const [headers, input, name] of cases) {
      const result = await runStep(call(headers), { ...scope, input }, ctx(['workflows:run']));
      expect(result.log, JSON.stringify(input)).toMatchObject({
        status: 'failed',
        code: 'invalid_header',
        userMessage: expect.stringContaining(JSON.stringify(name)),
      });
      expect(result.log.userMessage).not.toContain('Injected');
    }
  });

  it('resolves references, validates the input and runs the action', async () => {
    const result = await runStep(spoken, scope, ctx(['speech:write']));
    expect(result.log).toMatchObject({ step: 'say', status: 'succeeded', message: 'ok' });
    expect(result.output).toMatchObject({ text: 'Hi there.' });
  });

  it('fails the step, never throws, when the caller lacks the scope the action needs', async () => {
    const result = await runStep({ ...spoken, allowFailure: true }, scope, ctx(['workflows:run']));
    expect(result.log).toMatchObject({
      status: 'failed',
      code: 'insufficient_scope',
      userMessage: 'This action requires the scope speech:write.',
      handled: true,
    });
    expect(result.output).toBeUndefined();
  });

  it('fails the step with validation_failed and the pointers when the input does not fit', async () => {
    const result = await runStep(
      {
        id: 'say',
        action: 'actions/speech/spoken-text',
        with: { markdown: '{{ input.missing }}', extra: 1 },
      },
      scope,
      ctx(['speech:write']),
    );
    expect(result.log.code).toBe('validation_failed');
    expect(result.log.userMessage).toContain('/markdown');
    expect(result.log.userMessage).toContain('extra');
  });
});
