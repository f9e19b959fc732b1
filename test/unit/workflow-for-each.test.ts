import { describe, expect, it } from 'vitest';
import { forEachList, forEachStepResult } from '../../functions/shared/domain/workflows/for-each';
import { parseReference, resolveReferences } from '../../functions/shared/domain/workflows/references';
import { definitionProblems } from '../../functions/shared/domain/workflows/validate-definition';
import { registerWorkflowActions } from '../../functions/shared/operations/workflow-actions';
import { StepOutcomeError } from '../../functions/shared/step-outcomes';
import type { WorkflowStep } from '../../functions/shared/types/workflows';

registerWorkflowActions();

const http = 'actions/http/request';
const list = { id: 'list', action: http, with: { method: 'GET', url: 'https://h.example.com/items' } };
const loop = (extra: Record<string, unknown>) => ({
  id: 'each',
  action: http,
  with: { method: 'POST', url: 'https://h.example.com/{{ item.id }}', body: { n: '{{ index }}' } },
  ...extra,
});
const workflow = (...steps: unknown[]) => ({ id: 'w', name: 'W', steps, return: {} });
const problemsOf = async (doc: unknown) =>
  (await definitionProblems(doc)).map((p) => `${p.pointer}: ${p.message}`);

describe('forEach steps on save', () => {
  it('accepts a reference to an earlier step, a list written out, and a concurrency from 1 to 10', async () => {
    expect(
      await problemsOf(workflow(list, loop({ forEach: '{{ steps.list.output.items }}', concurrency: 5 }))),
    ).toEqual([]);
    expect(
      await problemsOf(workflow(loop({ forEach: [{ id: 'a' }, { id: 'b' }], concurrency: 10 }))),
    ).toEqual([]);
    expect(await problemsOf(workflow(loop({ forEach: '{{ input.items }}' })))).toEqual([]);
  });

  it('refuses a forEach that is neither one reference nor a list, at its pointer', async () => {
    for (const forEach of ['items', 'all {{ input.items }}', 3, { a: 1 }, '{{ input.a }}{{ input.b }}']) {
      expect(await problemsOf(workflow(loop({ forEach })))).toEqual([
        '/steps/0/forEach: must be one {{ reference }} to a list, or a list',
      ]);
    }
  });

  it('refuses a forEach naming a later or unknown step, or the item itself', async () => {
    expect(await problemsOf(workflow(loop({ forEach: '{{ steps.list.output }}' }), list))).toEqual([
      '/steps/0/forEach: reference {{ steps.list.output }} names a later step',
    ]);
    expect(await problemsOf(workflow(loop({ forEach: '{{ item.children }}' })))).toEqual([
      '/steps/0/forEach: reference {{ item.children }} is only available in the with of a forEach step',
    ]);
  });

  it('refuses a concurrency out of 1..10, not an integer, or without forEach', async () => {
    for (const concurrency of [0, 11, 2.5, '2']) {
      expect(await problemsOf(workflow(loop({ forEach: [1], concurrency })))).toEqual([
        '/steps/0/concurrency: must be an integer from 1 to 10',
      ]);
    }
    expect(await problemsOf(workflow({ ...list, concurrency: 2 }))).toEqual([
      '/steps/0/concurrency: is allowed only with forEach',
    ]);
  });

  it('refuses {{ item }} and {{ index }} outside the with of a forEach step', async () => {
    expect(await problemsOf(workflow(loop({})))).toEqual([
      '/steps/0/with/url: reference {{ item.id }} is only available in the with of a forEach step',
      '/steps/0/with/body/n: reference {{ index }} is only available in the with of a forEach step',
    ]);
    expect(
      await problemsOf({
        ...workflow(loop({ forEach: [1], if: { eq: ['{{ item }}', 1] } })),
        return: { last: '{{ index }}' },
      }),
    ).toEqual([
      '/steps/0/if/eq/0: reference {{ item }} is only available in the with of a forEach step',
      '/return/last: reference {{ index }} is only available in the with of a forEach step',
    ]);
    expect(await problemsOf(workflow(loop({ forEach: [1], with: { url: '{{ index.x }}' } })))).toEqual([
      '/steps/0/with/url: reference {{ index.x }}: index has no fields',
    ]);
  });
});

describe('forEach steps at run time', () => {
  const step = loop({ forEach: '{{ input.items }}' }) as WorkflowStep;
  const scope = (items: unknown) => ({ input: { items }, runId: 'wr_1', steps: {} });

  it('resolves item and index references against the item in scope', () => {
    expect(parseReference('item.a.0')).toEqual({ root: 'item', path: ['a', '0'] });
    expect(
      resolveReferences(
        { url: '/x/{{ item.a.0 }}', n: '{{ index }}', whole: '{{ item }}' },
        {
          ...scope([]),
          item: { a: ['v'] },
          index: 3,
        },
      ),
    ).toEqual({ url: '/x/v', n: 3, whole: { a: ['v'] } });
  });

  it('fails with foreach_not_array on anything but a list, and foreach_too_many_items past the plan', () => {
    for (const value of [undefined, null, 'abc', 3, { a: 1 }]) {
      expect(() => forEachList(step, scope(value), 10)).toThrowError(
        expect.objectContaining({ code: 'foreach_not_array' }) as Error,
      );
    }
    expect(forEachList(step, scope([1, 2, 3]), 3)).toEqual([1, 2, 3]);
    let thrown: unknown;
    try {
      forEachList(step, scope([1, 2, 3, 4]), 3);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StepOutcomeError);
    expect(thrown).toMatchObject({ code: 'foreach_too_many_items', extensions: { limit: 3, items: 4 } });
  });

  it('fails the step when an item failed, unless allowFailure lets failed items through', () => {
    const results = [
      {
        index: 1,
        status: 'failed' as const,
        error: { code: 'http_status', message: 'no' },
        attempts: 2,
        durationMs: 5,
      },
      { index: 0, status: 'succeeded' as const, output: { ok: true }, attempts: 1, durationMs: 7 },
    ];
    const failed = forEachStepResult(step, results, '2026-01-01T00:00:00.000Z');
    expect(failed.log).toMatchObject({ status: 'failed', code: 'foreach_items_failed', durationMs: 12 });
    expect(failed.output).toEqual({
      items: [
        { index: 0, status: 'succeeded', output: { ok: true }, attempts: 1 },
        { index: 1, status: 'failed', error: { code: 'http_status', message: 'no' }, attempts: 2 },
      ],
      succeeded: 1,
      failed: 1,
    });
    const allowed = forEachStepResult({ ...step, allowFailure: true }, results, '2026-01-01T00:00:00.000Z');
    expect(allowed.log.status).toBe('succeeded');
    expect(allowed.output).toEqual(failed.output);
  });
});
