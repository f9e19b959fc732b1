import { describe, expect, it } from 'vitest';
import { apiUrl, call, createTenant, expectProblem } from './support';

/** Inputs made by hand that once reached a 500 or were silently accepted: each gets a problem with a code. */
const raw = async (
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string | Buffer } = {},
) => {
  const response = await fetch(`${apiUrl}${path}`, { method, ...init });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: text ? JSON.parse(text) : {} };
};

const nested = (depth: number): string => `${'{"a":'.repeat(depth - 1)}1${'}'.repeat(depth - 1)}`;

describe('bodies', () => {
  it('refuses a body nested 10,000 deep with 400 and the pointer where it passes the limit', async () => {
    const t = await createTenant();
    const headers = { 'x-api-key': t.apiKey, 'content-type': 'application/json' };
    for (const [path, extra] of [
      ['/v1/dynadata/type/contacts/validate', {}],
      ['/v1/dynadata/type/contacts/create', {}],
      ['/v1/dynadata/type/contacts/create', { 'idempotency-key': `deep-${t.companyId}` }],
    ] as const) {
      const res = await raw('POST', path, { headers: { ...headers, ...extra }, body: nested(10_000) });
      expect(res.status, path).toBe(400);
      expect(res.json.code).toBe('validation_failed');
      expect(res.json.errors[0].pointer).toBe(`/body${'/a'.repeat(32)}`);
    }
  });

  it('accepts a body exactly at the nesting limit', async () => {
    const t = await createTenant();
    const res = await raw('POST', '/v1/dynadata/type/contacts/validate', {
      headers: { 'x-api-key': t.apiKey, 'content-type': 'application/json' },
      body: nested(32),
    });
    expect(res.status).toBe(200);
    expect(res.json.valid).toBe(false);
  });

  it('refuses a body that is not valid UTF-8 instead of storing replacement characters', async () => {
    const t = await createTenant();
    const body = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const res = await raw('POST', '/v1/dynadata/type/contacts/validate', {
      headers: { 'x-api-key': t.apiKey, 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'validation_failed', errors: [{ pointer: '/body' }] });
  });

  it.each(['1e-300', '1e999', '-1e200'])(
    'refuses the number %s, which cannot be stored, with a pointer',
    async (n) => {
      const t = await createTenant();
      const res = await raw('POST', '/v1/dynadata/type/contacts/create', {
        headers: { 'x-api-key': t.apiKey, 'content-type': 'application/json' },
        body: `{"name":"Ada","attributes":{"score":${n}}}`,
      });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({
        code: 'validation_failed',
        errors: [{ pointer: '/body/attributes/score' }],
      });
    },
  );
});

describe('operations that take no body', () => {
  it('refuse a body that asks for something, and leave the resource as it was', async () => {
    const t = await createTenant();
    const { seedJob } = await import('./transcode-support');
    const job = await seedJob(t.companyId, 'pending');
    const cancel = (body: string | undefined, contentType = 'application/json') =>
      raw('POST', `/v1/transcodes/${job.jobId}/cancel`, {
        headers: { 'x-api-key': t.apiKey, ...(body === undefined ? {} : { 'content-type': contentType }) },
        ...(body === undefined ? {} : { body }),
      });
    const cases: [string, string, { pointer: string }[]][] = [
      ['{"x":1}', 'application/json', [{ pointer: '/body/x' }]],
      [
        '{"reason":"dup","force":true}',
        'application/json',
        [{ pointer: '/body/reason' }, { pointer: '/body/force' }],
      ],
      ['[1]', 'application/json', [{ pointer: '/body' }]],
      ['null', 'application/json', [{ pointer: '/body' }]],
      ['not json', 'text/plain', [{ pointer: '/body' }]],
    ];
    for (const [body, contentType, errors] of cases) {
      const res = await cancel(body, contentType);
      expect([body, res.status, res.json.code]).toEqual([body, 400, 'validation_failed']);
      expect(res.json.errors).toMatchObject(errors);
    }
    const read = await call('GET', `/v1/transcodes/${job.jobId}`, { headers: { 'x-api-key': t.apiKey } });
    expect((read.json.job as { status: string }).status).toBe('pending');
    // `{}` asks for nothing, as does an empty body with a JSON content type.
    const withEmptyObject = await cancel('{}');
    expect(withEmptyObject.status, withEmptyObject.text).toBe(200);
    expect(withEmptyObject.json.job).toMatchObject({ status: 'canceled' });
    expectProblem(await cancel(''), 409, 'transcode_job_not_cancelable');
    expectProblem(await cancel(undefined), 409, 'transcode_job_not_cancelable');
  });

  it('refuse a body on a DELETE and on another POST alike', async () => {
    const t = await createTenant();
    const headers = { 'x-api-key': t.apiKey, 'content-type': 'application/json' };
    const del = await raw('DELETE', '/v1/webhooks/we_01abc', { headers, body: '{"force":true}' });
    expect(del.status).toBe(400);
    expect(del.json).toMatchObject({ code: 'validation_failed', errors: [{ pointer: '/body/force' }] });
    const get = await raw('POST', '/v1/webhooks/we_01abc/test', { headers, body: '{"event":"x"}' });
    expect(get.status).toBe(400);
    expect(get.json).toMatchObject({ code: 'validation_failed', errors: [{ pointer: '/body/event' }] });
  });
});

describe('query parameters', () => {
  it('refuses an unknown parameter on every kind of route, naming it', async () => {
    const t = await createTenant();
    const headers = { 'x-api-key': t.apiKey };
    for (const path of ['/v1/self?foo=1', '/v1/usage?foo=1', '/v1/public/plans?foo=1']) {
      const res = await call('GET', path, { headers });
      expectProblem(res, 400, 'validation_failed');
      expect(res.json.errors).toEqual([
        { pointer: '/query/foo', message: 'is not a parameter of this operation' },
      ]);
    }
  });

  it('refuses a single-valued parameter given twice instead of letting the last win', async () => {
    const t = await createTenant();
    const res = await call('GET', '/v1/usage?granularity=day&granularity=month', {
      headers: { 'x-api-key': t.apiKey },
    });
    expectProblem(res, 400, 'validation_failed');
    expect(res.json.errors).toEqual([{ pointer: '/query/granularity', message: 'must be given once' }]);
  });
});

describe('methods', () => {
  it.each(['PUT', 'PATCH', 'DELETE', 'POST'])(
    'answers %s on GET /v1/self with 405 and Allow',
    async (method) => {
      const t = await createTenant();
      const res = await call(method, '/v1/self', { headers: { 'x-api-key': t.apiKey } });
      expectProblem(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow')).toBe('GET');
    },
  );

  it('answers HEAD with 405 and Allow (HEAD is not served)', async () => {
    const res = await fetch(`${apiUrl}/v1/public/plans`, { method: 'HEAD' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });
});

describe('requests the edge refuses before any route', () => {
  it('answers request headers over what the gateway parses with a 431 problem', async () => {
    const { connect } = await import('node:net');
    const { hostname, port } = new URL(apiUrl);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => {
        socket.write(`GET /v1/self HTTP/1.1\r\nHost: ${hostname}\r\nx-big: ${'a'.repeat(1_100_000)}\r\n\r\n`);
      });
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString('utf8');
      });
      socket.on('end', () => resolve(text));
      socket.on('error', (error) => (text ? resolve(text) : reject(error)));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toContain('application/problem+json');
    expect(answer).toContain('"code":"request_header_fields_too_large"');
  });
});
