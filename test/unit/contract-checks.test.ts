import type { ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import {
  checkAnswer,
  declaredCodes,
  type FuzzRequest,
  makeAjv,
  type OpenApiDocument,
  toJsonSchema,
} from '../contract/fuzz';

/** The fuzz checks themselves: each one fails on the answer it exists to catch. */
const problem = { $ref: '#/components/schemas/Problem' };
const doc: OpenApiDocument = {
  paths: {
    '/v1/things/{id}': {
      get: {
        responses: {
          '200': {
            headers: { 'x-request-id': { $ref: '#/components/headers/RequestId' } as never },
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['id', 'note'],
                  properties: { id: { type: 'string' }, note: { type: 'string', nullable: true } },
                  additionalProperties: false,
                },
              },
            },
          },
          '404': {
            headers: { 'x-request-id': { schema: { type: 'string' } } },
            content: {
              'application/problem+json': {
                schema: {
                  allOf: [problem, { type: 'object', properties: { code: { enum: ['not_found'] } } }],
                },
              },
            },
          },
          '400': { content: { 'application/problem+json': { schema: problem } } },
        },
      },
      delete: { responses: { '204': { description: 'Deleted' } } },
    },
  },
  components: {
    headers: { RequestId: { required: true, schema: { type: 'string' } } },
    schemas: {
      Problem: {
        type: 'object',
        required: ['type', 'title', 'status', 'code', 'detail', 'requestId'],
        properties: {
          type: { type: 'string' },
          title: { type: 'string' },
          status: { type: 'integer' },
          code: { type: 'string', enum: ['not_found', 'validation_failed', 'conflict'] },
          detail: { type: 'string' },
          requestId: { type: 'string' },
        },
      },
    },
  },
};

const request = (overrides: Partial<FuzzRequest> = {}): FuzzRequest => ({
  kind: 'valid',
  method: 'GET',
  template: '/v1/things/{id}',
  path: '/v1/things/1',
  headers: {},
  expect: 'any',
  ...overrides,
});

const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
  status,
  headers: new Headers({
    'x-request-id': 'r1',
    'content-type': status >= 400 ? 'application/problem+json' : 'application/json',
    ...headers,
  }),
  text: body === undefined ? '' : JSON.stringify(body),
});

const notFound = (code = 'not_found') => ({
  type: `urn:problem-type:${code}`,
  title: 'Not found',
  status: 404,
  code,
  detail: 'none',
  requestId: 'r1',
});

const failed = (r: FuzzRequest, a: ReturnType<typeof answer>) =>
  checkAnswer(doc, makeAjv(doc), new Map<string, ValidateFunction>(), r, a)
    .filter((c) => !c.ok)
    .map((c) => c.check)
    .sort();

describe('the contract fuzz checks', () => {
  it('pass an answer that is exactly what the document declares', () => {
    expect(failed(request(), answer(200, { id: '1', note: null }))).toEqual([]);
    expect(failed(request(), answer(404, notFound()))).toEqual([]);
  });

  it('read the codes declared for a status through allOf, and none when only the catalogue is referenced', () => {
    const responses = doc.paths['/v1/things/{id}']?.get?.responses ?? {};
    expect(declaredCodes(doc, responses['404']?.content?.['application/problem+json']?.schema)).toEqual([
      'not_found',
    ]);
    expect(declaredCodes(doc, responses['400']?.content?.['application/problem+json']?.schema)).toEqual([
      'not_found',
      'validation_failed',
      'conflict',
    ]);
  });

  it('convert nullable and boolean exclusive bounds for ajv', () => {
    expect(toJsonSchema({ type: 'integer', minimum: 0, exclusiveMinimum: true, nullable: true })).toEqual({
      anyOf: [{ type: 'integer', exclusiveMinimum: 0 }, { type: 'null' }],
    });
  });

  it('catch a 5xx, an undeclared status and a body that breaks the schema', () => {
    expect(failed(request(), answer(500, { ...notFound('internal'), status: 500 }))).toEqual([
      'no-5xx',
      'status-declared',
    ]);
    expect(failed(request(), answer(200, { id: 1, note: 'x', extra: true }))).toEqual(['body-schema']);
    expect(failed(request(), answer(200, { id: '1', note: null }, { 'content-type': 'text/html' }))).toEqual([
      'content-type-declared',
    ]);
  });

  it('catch a problem with a code the status does not declare, or not shaped as a problem', () => {
    // The enum inside the schema fails the body too.
    expect(failed(request(), answer(404, notFound('conflict')))).toEqual(['body-schema', 'code-declared']);
    expect(failed(request(), answer(404, { ...notFound(), requestId: 'other' }))).toEqual(['problem-json']);
    expect(
      failed(request(), answer(404, notFound(), { 'content-type': 'application/json' })).includes(
        'content-type-declared',
      ),
    ).toBe(true);
  });

  it('catch API headers a response does not declare and declared required headers not sent', () => {
    expect(failed(request(), answer(400, { ...notFound('validation_failed'), status: 400 }))).toEqual([
      'headers-declared',
    ]);
    expect(failed(request(), answer(404, notFound(), { 'retry-after': '1' }))).toEqual(['headers-declared']);
    const missing = answer(200, { id: '1', note: null });
    missing.headers.delete('x-request-id');
    expect(failed(request(), missing)).toEqual(['headers-declared', 'x-request-id']);
  });

  it('catch a wrong method answered without 405 and the path item’s methods in Allow', () => {
    const wrong = request({ kind: 'wrong-method', method: 'POST', expect: 405 });
    const refusal = { ...notFound('method_not_allowed'), status: 405 };
    expect(failed(wrong, answer(405, refusal, { allow: 'GET, DELETE' }))).toEqual([]);
    expect(failed(wrong, answer(405, refusal, { allow: 'GET' }))).toEqual(['method-not-allowed']);
  });

  it('catch an invalid request that is not refused as its kind calls for', () => {
    expect(
      failed(request({ kind: 'no-credential', expect: 401 }), answer(200, { id: '1', note: null })),
    ).toEqual(['refused']);
    expect(
      failed(request({ kind: 'wrong-type', expect: '4xx' }), answer(200, { id: '1', note: null })),
    ).toEqual(['refused']);
  });
});
