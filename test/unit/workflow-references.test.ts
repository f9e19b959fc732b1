import { describe, expect, it } from 'vitest';
import {
  parseReference,
  type ReferenceScope,
  resolveReferences,
} from '../../functions/shared/domain/workflows/references';

const scope: ReferenceScope = {
  input: { name: 'Ada', n: 3, list: [{ id: 'x' }], nested: { ok: true } },
  runId: 'wr_1',
  steps: {
    token: { status: 'succeeded', output: { token: 't', count: 2, obj: { a: 1 } } },
    broken: { status: 'failed' },
  },
};

describe('workflow references', () => {
  it('takes the value with its type when a string is exactly one reference', () => {
    expect(resolveReferences('{{ input.n }}', scope)).toBe(3);
    expect(resolveReferences('{{input.nested}}', scope)).toEqual({ ok: true });
    expect(resolveReferences('{{ input.list.0.id }}', scope)).toBe('x');
    expect(resolveReferences('{{ steps.token.output.count }}', scope)).toBe(2);
    expect(resolveReferences('{{ steps.broken.status }}', scope)).toBe('failed');
    expect(resolveReferences('{{ run.id }}', scope)).toBe('wr_1');
  });

  it('interpolates references inside longer strings as text', () => {
    expect(resolveReferences('Hi {{ input.name }} #{{ input.n }} {{ steps.token.output.obj }}', scope)).toBe(
      'Hi Ada #3 {"a":1}',
    );
    expect(resolveReferences('x{{ steps.broken.output.a }}y', scope)).toBe('xy');
  });

  it("leaves out what is missing: a failed step's output, absent keys, prototype names", () => {
    expect(
      resolveReferences(
        {
          a: '{{ steps.broken.output.token }}',
          b: '{{ input.none }}',
          c: '{{ input.constructor }}',
          d: ['{{ input.none }}', 1],
          e: '{{ steps.ghost.status }}',
          f: 'kept',
        },
        scope,
      ),
    ).toEqual({ d: [null, 1], f: 'kept' });
  });

  it('parses only plain paths', () => {
    expect(parseReference('steps.a.output.b.0')).toEqual({
      root: 'steps',
      step: 'a',
      field: 'output',
      path: ['b', '0'],
    });
    expect(parseReference('input')).toEqual({ root: 'input', path: [] });
    for (const bad of ['', 'input..a', 'input.a()', 'env.x', 'steps.a', 'steps.a.output[0]', 'run.id.x'])
      expect(parseReference(bad), bad).toHaveProperty('problem');
  });
});
