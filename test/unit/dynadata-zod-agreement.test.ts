import { describe, expect, it } from 'vitest';
import { BUILTIN_TYPES } from '../../functions/shared/domain/dynadata/builtin-types';
import {
  type JsonSchema,
  normaliseTypeSchema,
  validateAgainst,
} from '../../functions/shared/domain/dynadata/json-schema';
import { zodSourceOf } from '../../functions/shared/domain/dynadata/zod-source';
import * as z from '../../functions/shared/zod';

/** Compiles the zod source text the API returns, exactly as a client would run it. */
const compileZod = (source: string): z.ZodType => {
  const body = source
    .replace("import { z } from 'zod';", '')
    .replace('export const schema =', 'const schema =');
  return new Function('z', `${body}\nreturn schema;`)(z) as z.ZodType;
};

const KITCHEN_SINK = await normaliseTypeSchema({
  type: 'object',
  properties: {
    s: { type: 'string', minLength: 2, maxLength: 4 },
    p: { type: 'string', pattern: '^[a-z]+\\d$' },
    email: { type: 'string', format: 'email' },
    when: { type: 'string', format: 'date-time' },
    day: { type: 'string', format: 'date' },
    uid: { type: 'string', format: 'uuid' },
    n: { type: 'number', minimum: 1, maximum: 10 },
    x: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
    i: { type: 'integer' },
    b: { type: 'boolean' },
    nul: { type: 'null' },
    either: { type: ['string', 'integer'] },
    color: { enum: ['red', 'green'] },
    mixed: { enum: [1, 'one', true] },
    fixed: { const: 'k' },
    list: { type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 2 },
    nested: {
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
      additionalProperties: false,
    },
    bag: { type: 'object', additionalProperties: { type: 'number' } },
    open: { type: 'object' },
    doc: { 'x-document': true },
  },
  required: ['s'],
  additionalProperties: false,
});

const kitchenCorpus: unknown[] = [
  { s: 'ab' },
  { s: 'abcd', p: 'abc1', n: 1, x: 0.5, i: 3, b: false, nul: null, either: 'x', color: 'red', fixed: 'k' },
  { s: 'a' },
  { s: 'abcde' },
  { s: '😀😀' },
  { s: '😀😀😀😀😀' },
  { s: 'ab', p: 'ABC1' },
  { s: 'ab', email: 'a@example.com' },
  { s: 'ab', email: 'a@b' },
  { s: 'ab', email: 'no at sign' },
  { s: 'ab', when: '2026-11-22T10:00:00Z' },
  { s: 'ab', when: '2026-11-22T10:00:00.123+01:00' },
  { s: 'ab', when: '2026-11-22 10:00' },
  { s: 'ab', day: '2026-02-30' },
  { s: 'ab', day: '2026-13-01' },
  { s: 'ab', uid: '123e4567-e89b-12d3-a456-426614174000' },
  { s: 'ab', uid: 'nope' },
  { s: 'ab', n: 0 },
  { s: 'ab', n: 10 },
  { s: 'ab', n: 10.5 },
  { s: 'ab', x: 0 },
  { s: 'ab', x: 1 },
  { s: 'ab', i: 1.5 },
  { s: 'ab', i: 1e21 },
  { s: 'ab', i: '1' },
  { s: 'ab', b: 'true' },
  { s: 'ab', nul: 0 },
  { s: 'ab', either: 2 },
  { s: 'ab', either: 2.5 },
  { s: 'ab', either: true },
  { s: 'ab', color: 'blue' },
  { s: 'ab', mixed: 1 },
  { s: 'ab', mixed: true },
  { s: 'ab', mixed: 'two' },
  { s: 'ab', fixed: 'j' },
  { s: 'ab', list: [] },
  { s: 'ab', list: [1, 2] },
  { s: 'ab', list: [1, 2, 3] },
  { s: 'ab', list: [1.5] },
  { s: 'ab', nested: { a: 'x' } },
  { s: 'ab', nested: {} },
  { s: 'ab', nested: { a: 'x', b: 1 } },
  { s: 'ab', bag: { a: 1, b: 2.5 } },
  { s: 'ab', bag: { a: 'x' } },
  { s: 'ab', open: { anything: [1, { x: 2 }] } },
  { s: 'ab', open: [] },
  { s: 'ab', doc: { fullPath: 'companies/x/a.pdf' } },
  { s: 'ab', doc: { bucket: 'b', fullPath: 'companies/x/a.pdf' } },
  { s: 'ab', doc: { fullPath: '' } },
  { s: 'ab', doc: { path: 'x' } },
  { s: 'ab', extra: 1 },
  {},
  [],
  null,
  'string',
];

const contactsCorpus: unknown[] = [
  { name: 'Ada' },
  {
    name: 'Ada',
    phoneNumbers: [{ label: 'work', number: '+14155550100' }],
    emails: [{ address: 'ada@example.com' }],
    channels: [{ channel: 'whatsapp', address: '+14155550100' }],
    attributes: { vip: true, score: 3, note: 'x', none: null },
    avatar: { fullPath: 'companies/c/a.png' },
  },
  { name: '' },
  { name: 'x'.repeat(201) },
  { phoneNumbers: [] },
  { name: 'Ada', phoneNumbers: [{ number: '4155550100' }] },
  { name: 'Ada', emails: [{ address: 'nope' }] },
  { name: 'Ada', channels: [{ channel: 'WhatsApp', address: 'x' }] },
  { name: 'Ada', attributes: { nested: { no: 1 } } },
  { name: 'Ada', unknown: 1 },
  { name: 'Ada', avatar: { fullPath: 1 } },
];

const messagesCorpus: unknown[] = [
  { contactId: 'c', type: 'text', body: { text: 'hi' }, status: 'queued', attempts: 0 },
  { contactId: 'c', type: 'fax', body: {}, status: 'queued' },
  { contactId: 'c', type: 'text', body: 'hi', status: 'queued' },
  { contactId: 'c', type: 'text', body: {}, status: 'lost' },
  { contactId: 'c', type: 'text', body: {}, status: 'sent', attempts: -1 },
];

const logCorpus: unknown[] = [
  { requestId: 'r', time: '2026-11-22T10:00:00.000Z', method: 'GET', path: '/v1/self', status: 200 },
  {
    requestId: 'r',
    time: '2026-11-22T10:00:00.000Z',
    method: 'GET',
    path: '/v1/self',
    status: 200,
    route: null,
  },
  { requestId: 'r', time: 'yesterday', method: 'GET', path: '/', status: 200 },
  { requestId: 'r', time: '2026-11-22T10:00:00.000Z', method: 'GET', path: '/', status: 200.5 },
  {
    requestId: 'r',
    time: '2026-11-22T10:00:00.000Z',
    method: 'GET',
    path: '/',
    status: 200,
    latencyMs: 'fast',
  },
];

/** Optional fields named like members every object inherits: an item may leave them out. */
const INHERITED_NAMES = await normaliseTypeSchema({
  type: 'object',
  properties: {
    title: { type: 'string' },
    toString: { type: 'string' },
    constructor: { type: 'string' },
    valueOf: { type: 'number' },
    hasOwnProperty: { type: 'boolean' },
    nested: { type: 'object', properties: { toString: { type: 'string' } }, additionalProperties: false },
  },
  required: ['title'],
  additionalProperties: false,
});
const inheritedNamesCorpus: unknown[] = [
  { title: 'a' },
  { title: 'a', toString: 'x', constructor: 'y', valueOf: 1, hasOwnProperty: true },
  { title: 'a', nested: {} },
  { title: 'a', nested: { toString: 's' } },
  { title: 'a', toString: 1 },
  { title: 'a', valueOf: 'one' },
  { title: 'a', nested: { toString: false } },
  { toString: 'x' },
];

const cases: [string, JsonSchema, unknown[]][] = [
  ['inherited member names', INHERITED_NAMES.schema, inheritedNamesCorpus],
  ['kitchen sink', KITCHEN_SINK.schema, kitchenCorpus],
  ['contacts', BUILTIN_TYPES.contacts.schema, contactsCorpus],
  ['messages', BUILTIN_TYPES.messages.schema, messagesCorpus],
  ['log_entries', BUILTIN_TYPES.log_entries.schema, logCorpus],
];

describe('zod source agrees with the JSON Schema validator', () => {
  it('normalises the kitchen-sink schema without problems', () => {
    expect(KITCHEN_SINK.problems).toEqual([]);
  });

  for (const [name, schema, corpus] of cases) {
    it(`accepts and refuses the same ${name} items`, async () => {
      const zodSchema = compileZod(zodSourceOf(name, schema));
      let accepted = 0;
      let refused = 0;
      for (const item of corpus) {
        const jsonSchemaValid = (await validateAgainst(schema, item)).length === 0;
        const zodValid = zodSchema.safeParse(item).success;
        expect({ item, zodValid }).toEqual({ item, zodValid: jsonSchemaValid });
        if (jsonSchemaValid) accepted++;
        else refused++;
      }
      // The corpus holds both good and bad items, so the comparison can fail either way.
      expect(accepted).toBeGreaterThan(0);
      expect(refused).toBeGreaterThan(0);
    });
  }

  it('reports unsupported keywords, formats and reserved field names with pointers', async () => {
    const { problems } = await normaliseTypeSchema({
      type: 'object',
      properties: {
        a: { type: 'string', format: 'hostname' },
        b: { anyOf: [] },
        _secret: { type: 'string' },
        createdAt: { type: 'string' },
      },
      'x-indexed': ['a', 'b', 'a', 'b'],
    });
    expect(problems.map((p) => p.pointer).sort()).toEqual(
      [
        '/properties/a/format',
        '/properties/b/anyOf',
        '/properties/b/type',
        '/properties/_secret',
        '/properties/createdAt',
        '/x-indexed',
      ].sort(),
    );
  });
});
