import { describe, expect, it } from 'vitest';
import { BUILTIN_TYPES } from '../../functions/shared/domain/dynadata/builtin-types';
import {
  FORMAT_PATTERNS,
  type JsonSchema,
  normaliseTypeSchema,
  validateAgainst,
} from '../../functions/shared/domain/dynadata/json-schema';
import { metaSchemaAjv, subsetAjv } from '../../functions/shared/domain/dynadata/json-schema-ajv';

const EVERY_KEYWORD = await normaliseTypeSchema({
  $id: 'https://example.com/schemas/every-keyword',
  $comment: 'Every keyword of the subset at least once.',
  title: 'Every keyword',
  description: 'A type that uses the whole subset.',
  type: 'object',
  properties: {
    s: { type: 'string', minLength: 2, maxLength: 4, default: 'ab', examples: ['abc'] },
    p: { type: 'string', pattern: '^\\p{Ll}+\\d$' },
    ...Object.fromEntries(Object.keys(FORMAT_PATTERNS).map((f) => [f, { type: 'string', format: f }])),
    n: { type: 'number', minimum: 1, maximum: 10, exclusiveMaximum: 9.5 },
    x: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
    i: { type: 'integer', title: 'Count' },
    either: { type: ['string', 'integer', 'null'], maxLength: 1, maximum: 5 },
    color: { enum: ['red', 'green'] },
    fixed: { const: 'k' },
    list: { type: 'array', items: { type: 'integer', minimum: 0 }, minItems: 1, maxItems: 2 },
    nested: {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'boolean' } },
      required: ['a', 'b'],
      additionalProperties: false,
    },
    bag: { type: 'object', additionalProperties: { type: 'number' } },
    doc: { 'x-document': true },
  },
  required: ['s', 'n'],
  additionalProperties: false,
  'x-indexed': ['n'],
});

const corpus: unknown[] = [
  { s: 'ab', n: 1 },
  { s: 'a', n: 0, p: 'ABC', email: 'a@b', 'date-time': 'now', date: '2026-13-01', uuid: 'nope' },
  { s: 'abcd', n: 9.75, p: 'é1', email: 'a@example.com', date: '2026-02-28' },
  { s: 'abcde', n: 11, x: 0, i: 1.5, either: 'xy', color: 'blue', fixed: 'j' },
  { s: 7, n: '1', x: 1, i: '1', either: 6, list: [], nested: {}, bag: { a: 'x', b: 2 } },
  { s: 'ab', n: 2, list: [1, -1, 2.5], nested: { a: 1, b: 'x', c: 0 }, doc: { path: 'x' } },
  { s: 'ab', n: 2, either: null, list: [1], nested: { a: 'x', b: true }, doc: { fullPath: 'p' } },
  { s: '😀😀😀😀😀', extra: true },
  {},
  [],
  null,
  'string',
];

const schemas: [string, JsonSchema][] = [
  ['every keyword', EVERY_KEYWORD.schema],
  ...Object.entries(BUILTIN_TYPES).map(([name, type]): [string, JsonSchema] => [name, type.schema]),
];

describe('the subset ajv instance that validates items', () => {
  it('compiles a schema that uses every keyword of the subset', () => {
    expect(EVERY_KEYWORD.problems).toEqual([]);
  });

  for (const [name, schema] of schemas) {
    it(`reports exactly the errors of ajv's full draft 2020-12 for ${name}`, () => {
      const full = metaSchemaAjv(FORMAT_PATTERNS).compile(schema);
      const subset = subsetAjv(FORMAT_PATTERNS).compile(schema);
      let refused = 0;
      for (const item of corpus) {
        const valid = full(item);
        expect({ item, valid: subset(item), errors: subset.errors }).toEqual({
          item,
          valid,
          errors: full.errors,
        });
        if (!valid) refused++;
      }
      expect(refused).toBeGreaterThan(0);
    });
  }

  it('refuses keywords outside the subset', () => {
    const ajv = subsetAjv(FORMAT_PATTERNS);
    for (const keyword of [{ anyOf: [{ type: 'string' }] }, { uniqueItems: true }, { $ref: '#' }]) {
      expect(() => ajv.compile({ type: 'array', ...keyword }), JSON.stringify(keyword)).toThrow();
    }
  });

  it('leaves the meta-schema check to type definitions', async () => {
    const { problems } = await normaliseTypeSchema({
      type: 'object',
      properties: { s: { type: 'string', minLength: -1 } },
    });
    expect(problems).toEqual([{ pointer: '/', message: expect.stringMatching(/^not a valid schema: /) }]);
  });

  it('checks and validates against a changed schema that keeps its $id', async () => {
    const schema = (type: string) => ({
      $id: 'https://example.com/schemas/changing',
      type: 'object',
      properties: { n: { type } },
    });
    const before = await normaliseTypeSchema(schema('number'));
    const after = await normaliseTypeSchema(schema('string'));
    expect([before.problems, after.problems]).toEqual([[], []]);
    expect(await validateAgainst(before.schema, { n: 'x' })).toEqual([
      { pointer: '/body/n', message: 'must be number' },
    ]);
    expect(await validateAgainst(after.schema, { n: 'x' })).toEqual([]);
  });

  it('validates own members only: optional fields named like members every object inherits may be left out', async () => {
    const names = ['toString', 'constructor', 'valueOf', 'hasOwnProperty'];
    const { schema, problems } = await normaliseTypeSchema({
      type: 'object',
      properties: {
        title: { type: 'string' },
        ...Object.fromEntries(names.map((n) => [n, { type: 'string' }])),
      },
      required: ['title'],
      additionalProperties: false,
    });
    expect(problems).toEqual([]);
    expect(await validateAgainst(schema, { title: 'a' })).toEqual([]);
    expect(await validateAgainst(schema, { title: 'a', toString: 1 })).toEqual([
      { pointer: '/body/toString', message: 'must be string' },
    ]);
    const requiring = await normaliseTypeSchema({
      type: 'object',
      properties: { constructor: { type: 'string' } },
      required: ['constructor'],
    });
    expect(await validateAgainst(requiring.schema, {})).toEqual([
      { pointer: '/body/constructor', message: 'is required' },
    ]);
  });

  it('refuses a format named like an inherited member at its pointer, as any unknown format', async () => {
    for (const format of ['toString', 'constructor', 'hasOwnProperty']) {
      const { problems } = await normaliseTypeSchema({
        type: 'object',
        properties: { a: { type: 'string', format } },
      });
      expect(problems).toEqual([
        { pointer: '/properties/a/format', message: expect.stringContaining('unsupported format') },
      ]);
    }
  });
});
