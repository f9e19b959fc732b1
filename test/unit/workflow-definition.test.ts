import { describe, expect, it } from 'vitest';
import {
  definitionProblems,
  normaliseDefinition,
} from '../../functions/shared/domain/workflows/validate-definition';
import { registerWorkflowActions } from '../../functions/shared/operations/workflow-actions';
import type { WorkflowDefinition } from '../../functions/shared/types/workflows';

registerWorkflowActions();

const jwt = 'actions/security/auth/jwt/generate';
const valid = {
  id: 'welcome',
  name: 'Welcome a contact',
  description: 'optional',
  input: { type: 'object', properties: { fullPath: { type: 'string' } }, required: ['fullPath'] },
  steps: [
    { id: 'token', action: jwt, with: { dur: 600, advanced: true, scopes: ['usage:read'] } },
    {
      id: 'audio',
      action: 'actions/media/transcode',
      with: { fullPath: '{{ input.fullPath }}', preset: 'ogg_opus' },
      allowFailure: true,
    },
  ],
  return: { token: '{{ steps.token.output.token }}', job: '{{ steps.audio.output.job.id }}' },
};

const pointers = async (doc: unknown) => (await definitionProblems(doc)).map((p) => p.pointer);

describe('workflow definition validation', () => {
  it('refuses HTTP step headers that can be known bad on save, each at its pointer', async () => {
    const httpStep = (headers: Record<string, unknown>) => ({
      id: 'w',
      name: 'W',
      steps: [
        {
          id: 'call',
          action: 'actions/http/request',
          with: { method: 'GET', url: 'https://h.example.com/', headers },
        },
      ],
    });
    const problems = await definitionProblems(
      httpStep({
        'x-cr': 'a\rb',
        'x-lf': 'a\nInjected: 1',
        'x-nul': 'a\u0000',
        'x-wide': 'price in €',
        'bad header(': 'v',
        '{{ input.name }}': 'v',
        'X-WORKFLOW-HOP': '0',
        'x-workflow-hop': '0',
        'Content-Length': '1',
        Host: 'elsewhere.example.com',
      }),
    );
    expect(problems).toEqual(
      [
        '/steps/0/with/headers/x-cr',
        '/steps/0/with/headers/x-lf',
        '/steps/0/with/headers/x-nul',
        '/steps/0/with/headers/x-wide',
        '/steps/0/with/headers/bad header(',
        '/steps/0/with/headers/{{ input.name }}',
        '/steps/0/with/headers/X-WORKFLOW-HOP',
        '/steps/0/with/headers/x-workflow-hop',
        '/steps/0/with/headers/Content-Length',
        '/steps/0/with/headers/Host',
      ].map((pointer) => ({ pointer, message: expect.any(String) })),
    );
    expect(problems[5]?.message).toContain('reference');
    expect(problems[6]?.message).toContain('set by the platform');
    // References in values are checked when the step runs; tabs, Latin-1 and visible ASCII are fine.
    expect(
      await definitionProblems(
        httpStep({
          authorization: 'Bearer {{ input.token }}',
          'x-v': '{{ input.v }}',
          'x-t': 'a\tb café ~!',
        }),
      ),
    ).toEqual([]);
  });

  it('accepts the documented example and normalises defaults', async () => {
    expect(await definitionProblems(valid)).toEqual([]);
    const normalised = await normaliseDefinition(valid as WorkflowDefinition);
    expect(normalised.steps[0]).toMatchObject({ allowFailure: false, with: valid.steps[0]?.with });
    expect(
      (await normaliseDefinition({ id: 'a', name: 'A', steps: [{ id: 's', action: jwt }] })).input,
    ).toMatchObject({
      type: 'object',
    });
  });

  it('lists every violation by JSON pointer', async () => {
    expect(await pointers([])).toEqual(['/']);
    expect(
      (
        await pointers({
          id: 'UPPER',
          name: 'x'.repeat(201),
          description: 5,
          more: true,
          input: { type: 'object', properties: { a: { type: 'wat' } } },
          steps: [{ id: 'a b', action: 'nope', with: [], allowFailure: 1, extra: 1 }],
          return: 3,
        })
      ).sort(),
    ).toEqual(
      [
        '/description',
        '/id',
        '/input/properties/a/type',
        '/more',
        '/name',
        '/steps/0/action',
        '/steps/0/allowFailure',
        '/steps/0/extra',
        '/steps/0/id',
        '/steps/0/with',
      ].sort(),
    );
  });

  it('bounds the nesting (32 levels, as request bodies) and refuses __proto__, each with its pointer', async () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 200; i++) deep = { a: deep };
    const problems = await definitionProblems({ ...valid, steps: [{ ...valid.steps[0], with: { deep } }] });
    expect(problems).toHaveLength(1);
    expect(problems[0]?.message).toContain('32 levels');
    expect(problems[0]?.pointer).toMatch(/^\/steps\/0\/with\/deep(\/a)+$/);
    const proto = JSON.parse('{"__proto__": {"x": 1}}') as Record<string, unknown>;
    expect(await definitionProblems({ ...valid, return: proto })).toEqual([
      { pointer: '/return/__proto__', message: 'a member may not be named __proto__' },
    ]);
    expect(
      await definitionProblems({ ...valid, steps: [{ ...valid.steps[0], id: '__proto__' }], return: {} }),
    ).toEqual([{ pointer: '/steps/0/id', message: 'may not be __proto__' }]);
    // Names Object.prototype already has are data.
    expect(
      await definitionProblems({
        ...valid,
        return: { constructor: '{{ steps.token.output.token }}', toString: 1 },
      }),
    ).toEqual([]);
  });

  it('bounds the steps: 1 to 50, unique ids', async () => {
    expect(await pointers({ ...valid, steps: [], return: undefined })).toEqual(['/steps']);
    const many = Array.from({ length: 51 }, (_, i) => ({ id: `s${i}`, action: jwt }));
    expect(await pointers({ ...valid, steps: many, return: undefined })).toEqual(['/steps']);
    expect(await pointers({ ...valid, steps: [valid.steps[0], valid.steps[0]], return: undefined })).toEqual([
      '/steps/1/id',
    ]);
  });

  it('refuses references to later or unknown steps, bad paths and unclosed braces', async () => {
    const problems = await definitionProblems({
      ...valid,
      steps: [
        { id: 'a', action: jwt, with: { dur: '{{ steps.b.output.n }}', kind: 'x {{ steps.zz.status }}' } },
        {
          id: 'b',
          action: jwt,
          with: { kind: '{{ input.a.b }} {{ process.env.X }} {{ steps.a.result }} {{ open' },
        },
      ],
      return: { later: '{{ steps.b.output }}', run: '{{ run.id }}', bad: '{{ run.secret }}' },
    });
    expect(problems).toEqual([
      { pointer: '/steps/0/with/dur', message: 'reference {{ steps.b.output.n }} names a later step' },
      { pointer: '/steps/0/with/kind', message: 'reference {{ steps.zz.status }} names an unknown step' },
      { pointer: '/steps/1/with/kind', message: expect.stringContaining('process.env.X') },
      {
        pointer: '/steps/1/with/kind',
        message: expect.stringContaining('steps.a has only output and status'),
      },
      { pointer: '/steps/1/with/kind', message: 'has an unclosed {{' },
      { pointer: '/return/bad', message: expect.stringContaining('only run.id exists') },
    ]);
  });

  it('refuses code-like references: nothing is evaluated', async () => {
    for (const text of ['{{ input.a() }}', '{{ input["a"] }}', '{{ 1 + 1 }}', '{{ input.a || 1 }}']) {
      expect(await pointers({ ...valid, return: { x: text } }), text).toEqual(['/return/x']);
    }
  });
});
