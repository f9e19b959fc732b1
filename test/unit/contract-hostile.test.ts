import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type FuzzRequest, type OpenApiDocument, type RequestKind, requestArbitrary } from '../contract/fuzz';
import {
  astralStrings,
  headerValueOf,
  markdownNestings,
  nestedJsonText,
  PROTOTYPE_NAMES,
} from '../contract/hostile';
import type { SeededTenant } from '../contract/seed';

/** The hostile request families of the fuzz engine: where they put their values, and what they expect. */
const problem = { content: { 'application/problem+json': { schema: { type: 'object' } } } };
const doc: OpenApiDocument = {
  paths: {
    '/v1/notes/{id}': {
      post: {
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string', maxLength: 64 } },
          { name: 'lang', in: 'query', schema: { type: 'string', maxLength: 8 } },
          { name: 'Idempotency-Key', in: 'header', schema: { type: 'string', maxLength: 255 } },
        ],
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['markdown', 'url', 'attributes'],
                properties: {
                  markdown: { type: 'string', maxLength: 8000 },
                  url: { type: 'string', minLength: 1, maxLength: 2048 },
                  attributes: { type: 'object', additionalProperties: { type: 'string', maxLength: 10 } },
                },
              },
            },
          },
        },
        responses: { '200': { description: 'ok' }, '400': problem },
      },
    },
  },
};
const tenant: SeededTenant = {
  companyId: 'c1',
  apiKey: 'sk-test',
  limitedKey: 'sk-limited',
  revokedKey: 'sk-revoked',
  values: {},
  close: async () => {},
};

const sample = (kinds: RequestKind[], seed = 1, numRuns = 400): FuzzRequest[] =>
  fc.sample(requestArbitrary(doc, tenant, kinds), { seed, numRuns });

/** The deepest nesting of arrays and objects in a JSON text (strings skipped). */
const depthOf = (text: string): number => {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') deepest = Math.max(deepest, ++depth);
    else if (c === ']' || c === '}') depth--;
  }
  return deepest;
};

describe('the hostile request families', () => {
  it('draw the same requests from the same seed, and other requests from another', () => {
    const kinds: RequestKind[] = ['prototype-member', 'deep-nesting', 'astral-string'];
    expect(sample(kinds, 7)).toEqual(sample(kinds, 7));
    expect(sample(kinds, 8)).not.toEqual(sample(kinds, 7));
  });

  it('put every prototype name in the body at top level and nested, as a query name and as a header name', () => {
    const requests = sample(['prototype-member'], 1, 1500);
    const inBody = requests.flatMap((r) => [...(r.body ?? '').matchAll(/"([^"]+)":/g)].map((m) => m[1]));
    const nested = requests.filter((r) =>
      /"attributes":\{[^}]*"(__proto__|constructor|toString)":/.test(r.body ?? ''),
    );
    const inQuery = requests.map((r) => new URL(r.path, 'http://x').searchParams);
    for (const name of PROTOTYPE_NAMES) {
      expect(inBody, name).toContain(name);
      expect(
        inQuery.some((q) => q.has(name)),
        name,
      ).toBe(true);
      expect(
        requests.some((r) => Object.hasOwn(r.headers, name)),
        name,
      ).toBe(true);
    }
    expect(nested.length).toBeGreaterThan(0);
  });

  it('store __proto__ as a member of the JSON text and expect its refusal', () => {
    const requests = sample(['prototype-member'], 2, 1500).filter((r) => r.body?.includes('"__proto__":'));
    expect(requests.length).toBeGreaterThan(0);
    for (const r of requests) expect(r.expect).toBe('4xx');
  });

  it('nest a body position 33 to 2,000 levels deep and expect its refusal', () => {
    const requests = sample(['deep-nesting'], 3, 300);
    const depths = requests.map((r) => depthOf(r.body ?? ''));
    expect(Math.min(...depths)).toBeGreaterThanOrEqual(33);
    // 2,000 levels at most, plus the depth of the position they replace (the body, or a member of it).
    expect(Math.max(...depths)).toBeLessThanOrEqual(2002);
    expect(depths.some((d) => d >= 2000)).toBe(true);
    for (const r of requests) expect(r.expect).toBe('4xx');
  });

  it('nest Markdown in the markdown field only', () => {
    for (const r of sample(['markdown-nesting'], 4, 100)) {
      const body = JSON.parse(r.body ?? '{}') as { markdown: string };
      expect(markdownNestings(8000)).toContain(body.markdown);
    }
    expect(markdownNestings(8000)[0]).toBe(`${'> '.repeat(2000)}deep`);
  });

  it('put blank, astral and hostile-URL strings at body, path, query and header positions', () => {
    const requests = sample(['blank-string', 'astral-string', 'url-control'], 5, 1500);
    expect(
      requests.some(
        (r) => /"markdown":"\\u200b"/.test(r.body ?? '') || r.body?.includes('"markdown":"\u200b"'),
      ),
    ).toBe(true);
    expect(requests.some((r) => r.path.startsWith('/v1/notes/%F0%9F%98%80'))).toBe(true);
    expect(requests.some((r) => new URL(r.path, 'http://x').searchParams.get('lang') === ' ')).toBe(true);
    expect(requests.some((r) => r.headers['Idempotency-Key']?.includes('\u00f0\u009f\u0098\u0080'))).toBe(
      true,
    );
    const urls = requests.filter((r) => r.kind === 'url-control').map((r) => JSON.parse(r.body ?? '{}').url);
    expect(urls).toContain('https://example.com/\r\nx');
    expect(urls).toContain('https://user:secret@example.com/');
  });

  it('count astral strings both ways around a limit, and expect a refusal only over both counts', () => {
    const strings = astralStrings(10);
    const codePoints = (s: string) => [...s].length;
    expect(strings.map(({ value }) => [value.length, codePoints(value)])).toEqual([
      [10, 5],
      [20, 10],
      [12, 6],
      [11, 10],
      [10, 10],
      [22, 11],
    ]);
    expect(strings.filter((s) => s.overLimit).map((s) => codePoints(s.value))).toEqual([11]);
    const overLimit = sample(['astral-string'], 6, 600).filter((r) => r.expect === '4xx');
    expect(overLimit.length).toBeGreaterThan(0);
  });

  it('make JSON exactly as deep as asked, of arrays, objects or both', () => {
    expect(nestedJsonText(2, 'array')).toBe('[[0]]');
    expect(nestedJsonText(2, 'object')).toBe('{"a":{"a":0}}');
    expect(nestedJsonText(3, 'mixed')).toBe('{"a":[{"a":0}]}');
    expect(depthOf(nestedJsonText(2000, 'mixed'))).toBe(2000);
  });

  it('send header values as wire bytes a client can send', () => {
    expect(headerValueOf('\u{1F600}')).toBe('\u00f0\u009f\u0098\u0080');
    expect(headerValueOf(' ')).toBe('x x');
    expect(headerValueOf('\r\n')).toBe('x  x');
    expect(() => new Headers({ h: headerValueOf('\u200b\ud83d\n\t') })).not.toThrow();
  });
});
