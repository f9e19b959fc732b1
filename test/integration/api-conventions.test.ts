import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiUrl, call, createTenant, expectProblem } from './support';

/**
 * The contract conventions at the wire (`docs/openapi.md`, "Conventions: timestamps, deprecations, the
 * document, job list filters"): the document served compressed with a strong ETag per coding and 304 on
 * `If-None-Match`, deprecated inputs answered with `Deprecation` and `Sunset`, and the job lists' filters
 * refused at their pointer when they are not values.
 */

/** A GET with node's http client: fetch would decode the body itself and hide `Content-Encoding`. */
const rawGet = (path: string, headers: Record<string, string>) =>
  new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>(
    (resolve, reject) => {
      request(`${apiUrl}${path}`, { headers }, (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () =>
          resolve({ status: r.statusCode ?? 0, headers: r.headers, body: Buffer.concat(chunks) }),
        );
      })
        .on('error', reject)
        .end();
    },
  );

describe('GET /v1/openapi.json: compressed when asked, with an ETag', () => {
  const DECODE: Record<string, (body: Buffer) => Buffer> = {
    identity: (body) => body,
    gzip: gunzipSync,
    br: brotliDecompressSync,
  };

  it.each([
    ['identity', 'identity'],
    ['gzip', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['*', 'br'],
    ['br;q=0, gzip;q=0', 'identity'],
  ])('Accept-Encoding: %s answers %s, the same document', async (accept, coding) => {
    const plain = await rawGet('/v1/openapi.json', { 'accept-encoding': 'identity' });
    const res = await rawGet('/v1/openapi.json', { 'accept-encoding': accept });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe(coding === 'identity' ? undefined : coding);
    expect(String(res.headers.vary).toLowerCase()).toContain('accept-encoding');
    expect(res.headers['content-type']).toBe('application/json');
    const decoded = (DECODE[coding] as (b: Buffer) => Buffer)(res.body);
    expect(decoded.equals(plain.body)).toBe(true);
    expect((JSON.parse(decoded.toString()) as { openapi: string }).openapi).toBe('3.0.3');
    if (coding !== 'identity') expect(res.body.length).toBeLessThan(plain.body.length / 10);
    // A strong tag, one per representation: the coding is part of it.
    const etag = String(res.headers.etag);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}(-gzip|-br)?"$/);
    expect(etag.endsWith(coding === 'identity' ? '"' : `-${coding}"`)).toBe(true);
  });

  it('answers 304 without a body to If-None-Match with its tag, and 200 to another tag', async () => {
    for (const accept of ['identity', 'gzip', 'br']) {
      const first = await rawGet('/v1/openapi.json', { 'accept-encoding': accept });
      const etag = String(first.headers.etag);
      const again = await rawGet('/v1/openapi.json', { 'accept-encoding': accept, 'if-none-match': etag });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);
      expect(again.headers.etag).toBe(etag);
      expect(again.headers['content-encoding']).toBeUndefined();
      const other = await rawGet('/v1/openapi.json', {
        'accept-encoding': accept,
        'if-none-match': '"other"',
      });
      expect(other.status).toBe(200);
    }
    const plain = await rawGet('/v1/openapi.json', { 'accept-encoding': 'identity' });
    expect(plain.headers['cache-control']).toBe('public, no-cache');
    // Far within Lambda's 6 MB response limit, raw or base64-encoded.
    expect(Math.ceil(plain.body.length / 3) * 4).toBeLessThan(6 * 1024 * 1024);
  });
});

describe('deprecated inputs', () => {
  let headers: Record<string, string>;
  beforeAll(async () => {
    headers = { 'x-api-key': (await createTenant()).apiKey };
  });

  it('GET /v1/events?after= answers Deprecation and Sunset; without it, neither', async () => {
    const deprecated = await call('GET', `/v1/events?after=evt_${'0'.repeat(26)}`, { headers });
    expect(deprecated.status).toBe(200);
    expect(deprecated.headers.get('deprecation')).toBe(`@${Date.parse('2026-11-25T00:00:00Z') / 1000}`);
    expect(deprecated.headers.get('sunset')).toBe('Mon, 31 May 2027 00:00:00 GMT');
    const current = await call('GET', `/v1/events?cursor=evt_${'0'.repeat(26)}`, { headers });
    expect(current.status).toBe(200);
    expect(current.headers.get('deprecation')).toBeNull();
    expect(current.headers.get('sunset')).toBeNull();
  });
});

describe('job list filters', () => {
  let headers: Record<string, string>;
  beforeAll(async () => {
    headers = { 'x-api-key': (await createTenant()).apiKey };
  });

  it.each([
    ['/v1/transcodes?status=finished', '/query/status'],
    ['/v1/transcriptions?status=done,failed', '/query/status'],
    ['/v1/speech/jobs?createdAfter=yesterday', '/query/createdAfter'],
    ['/v1/transcodes?createdBefore=2026-11-29', '/query/createdBefore'],
    ['/v1/transcodes?createdAfter=2026-11-29T10:00:00%2B01:00', '/query/createdAfter'],
    [
      '/v1/transcodes?createdAfter=2026-11-29T10:00:00Z&createdBefore=2026-11-29T10:00:00Z',
      '/query/createdBefore',
    ],
    [
      '/v1/transcriptions?createdAfter=2026-11-29T10:00:00Z&createdBefore=2026-11-28T10:00:00Z',
      '/query/createdBefore',
    ],
  ])('%s is 400 validation_failed at %s', async (path, pointer) => {
    const res = await call('GET', path, { headers });
    expectProblem(res, 400, 'validation_failed');
    expect((res.json.errors as { pointer: string }[]).map((e) => e.pointer)).toEqual([pointer]);
  });

  it('a window before any job, or far in the future, is an empty last page', async () => {
    for (const window of [
      'createdBefore=1970-01-01T00:00:00.001Z',
      'createdAfter=9999-12-31T23:59:59Z',
      'status=canceled&createdAfter=2000-01-01T00:00:00Z',
    ]) {
      const res = await call('GET', `/v1/transcodes?${window}`, { headers });
      expect([window, res.status, res.json]).toEqual([window, 200, { jobs: [], nextCursor: null }]);
    }
  });
});
