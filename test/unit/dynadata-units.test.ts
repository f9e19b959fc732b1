import { describe, expect, it } from 'vitest';
import { indexValue } from '../../functions/shared/data/dynadata-items';
import { mergePatch } from '../../functions/shared/domain/dynadata/items';
import { decodeCursor, encodeCursor } from '../../functions/shared/domain/dynadata/list-cursor';
import { signWebhook, webhookUrlProblem } from '../../functions/shared/domain/messages/webhooks';
import { classifyAddress } from '../../functions/shared/outbound-addresses';

const KEY = 'unit-test-cursor-key';

describe('indexed values', () => {
  it('sort numbers and strings in their natural order as text', () => {
    const numbers = [-1e9, -2.5, -1, -0.001, 0, 0.001, 1, 2, 10, 1e12];
    const encoded = numbers.map((n) => indexValue(n) ?? '');
    expect([...encoded].sort()).toEqual(encoded);
    expect(indexValue(Number.NaN)).toBeUndefined();
    expect(indexValue({})).toBeUndefined();
    expect((indexValue('b') ?? '') > (indexValue('a') ?? '')).toBe(true);
  });
});

describe('JSON merge patch', () => {
  it('removes null fields, merges objects and replaces arrays', () => {
    expect(mergePatch({ a: 1, b: { c: 1, d: 2 }, e: [1] }, { a: null, b: { c: 3 }, e: [2] })).toEqual({
      b: { c: 3, d: 2 },
      e: [2],
    });
  });
});

describe('list cursors', () => {
  it('round-trip for the same query and are refused for any other query or a changed payload', () => {
    const cursor = encodeCursor(KEY, 'q1', { pk: 'a', sk: 'b' });
    expect(decodeCursor(KEY, 'q1', cursor)).toEqual({ pk: 'a', sk: 'b' });
    expect(() => decodeCursor(KEY, 'q2', cursor)).toThrow();
    // Any changed byte (the sealed key, the nonce or the tag) is refused.
    const bytes = Buffer.from(cursor, 'base64url');
    for (const at of [0, 14, bytes.length - 1]) {
      const altered = Buffer.from(bytes);
      altered[at] = (altered[at] ?? 0) ^ 1;
      expect(() => decodeCursor(KEY, 'q1', altered.toString('base64url'))).toThrow();
    }
    expect(() => decodeCursor(KEY, 'q1', 'garbage')).toThrow();
    expect(() => decodeCursor(KEY, 'q1', `${cursor}.x`)).toThrow();
    expect(() => decodeCursor('another-key', 'q1', cursor)).toThrow();
  });

  it('show none of the keys they carry, and differ each time for the same key', () => {
    const key = { pk: 'CO#co_1#DD#contacts', sk: 'IT#01abc', gsi1sk: 'Ada' };
    const a = encodeCursor(KEY, 'q1', key);
    const b = encodeCursor(KEY, 'q1', key);
    expect(a).not.toBe(b);
    for (const cursor of [a, b]) {
      const text = Buffer.from(cursor, 'base64url').toString('latin1');
      for (const shown of ['CO#', 'contacts', 'Ada', 'pk', 'IT#']) expect(text).not.toContain(shown);
    }
  });
});

describe('webhook URLs and signatures', () => {
  it('classifies addresses', () => {
    expect(classifyAddress('8.8.8.8')).toBe('public');
    expect(classifyAddress('127.0.0.1')).toBe('loopback');
    expect(classifyAddress('::1')).toBe('loopback');
    for (const a of [
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      'fd00::1',
      'fe80::1',
      '::',
      '::ffff:10.0.0.1',
    ])
      expect(classifyAddress(a), a).toBe('refused');
    expect(classifyAddress('172.32.0.1')).toBe('public');
  });

  it('accepts https, and http or https to loopback only when allowed', () => {
    expect(webhookUrlProblem('https://hooks.example.com/x', { allowLoopback: false })).toBeUndefined();
    expect(webhookUrlProblem('http://hooks.example.com/x', { allowLoopback: true })).toBeDefined();
    expect(webhookUrlProblem('http://127.0.0.1:9000/x', { allowLoopback: false })).toBeDefined();
    expect(webhookUrlProblem('http://localhost:9000/x', { allowLoopback: false })).toBeDefined();
    expect(webhookUrlProblem('http://127.0.0.1:9000/x', { allowLoopback: true })).toBeUndefined();
    expect(webhookUrlProblem('https://[::1]/x', { allowLoopback: true })).toBeUndefined();
    expect(webhookUrlProblem('ftp://127.0.0.1/x', { allowLoopback: true })).toBeDefined();
    expect(webhookUrlProblem('https://169.254.169.254/', { allowLoopback: true })).toBeDefined();
  });

  it('signs per Standard Webhooks (the example of its specification)', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"test": 2432232314}';
    expect(signWebhook(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1_614_265_330, body)).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
    expect(signWebhook(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1_614_265_330, `${body} `)).not.toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });
});

describe('document fields in every position of the subset', () => {
  it('follows every sub-schema keyword of the subset when collecting document fields', async () => {
    const { SUBSCHEMA_KEYWORDS } = await import('../../functions/shared/domain/dynadata/json-schema');
    // The subset's keywords whose value is a schema (ajv's applicator vocabulary) are exactly the ones the
    // collector follows: a new applicator added to the subset must be followed too.
    const { subsetAjv } = await import('../../functions/shared/domain/dynadata/json-schema-ajv');
    const ajv = subsetAjv({});
    const applicators = [
      'properties',
      'additionalProperties',
      'items',
      'prefixItems',
      'patternProperties',
      'dependentSchemas',
      'propertyNames',
      'contains',
      'if',
      'then',
      'else',
      'not',
      'allOf',
      'anyOf',
      'oneOf',
      'unevaluatedProperties',
      'unevaluatedItems',
      '$ref',
      '$defs',
      'definitions',
    ].filter((k) => ajv.getKeyword(k) !== false);
    expect([...SUBSCHEMA_KEYWORDS].sort()).toEqual(applicators.sort());
  });

  it('finds document fields under additionalProperties, items and nested objects', async () => {
    const { documentFieldsOf, normaliseTypeSchema } = await import(
      '../../functions/shared/domain/dynadata/json-schema'
    );
    const { schema, problems } = await normaliseTypeSchema({
      type: 'object',
      properties: {
        named: { 'x-document': true },
        map: {
          type: 'object',
          properties: { fixed: { type: 'string' } },
          additionalProperties: { 'x-document': true },
        },
        grid: { type: 'array', items: { type: 'array', items: { 'x-document': true } } },
      },
      additionalProperties: { type: 'object', properties: { inner: { 'x-document': true } } },
    });
    expect(problems).toEqual([]);
    const ref = { fullPath: 'companies/x/f' };
    expect(
      documentFieldsOf(schema, {
        named: ref,
        map: { fixed: 'not a document', 'a/b': ref },
        grid: [[ref], [], [ref, ref]],
        loose: { inner: ref },
        __proto__: { inner: ref },
      }).map((f) => f.pointer),
    ).toEqual(['/named', '/map/a~1b', '/grid/0/0', '/grid/2/0', '/grid/2/1', '/loose/inner']);
  });

  it('refuses x-document on the root of a type schema', async () => {
    const { normaliseTypeSchema } = await import('../../functions/shared/domain/dynadata/json-schema');
    expect((await normaliseTypeSchema({ type: 'object', 'x-document': true })).problems).toContainEqual({
      pointer: '/x-document',
      message: expect.stringMatching(/root/),
    });
  });
});
