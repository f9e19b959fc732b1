import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { apiUrl, call, createTenant, expectProblem } from './support';

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${apiUrl}${path}`, { headers });

const assetsOf = (html: string): string[] =>
  [...html.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1] as string);

describe('GET /v1/docs: the interactive documentation', () => {
  it('serves the page without a credential, linking only assets of this API', async () => {
    const res = await get('/v1/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    const policy = res.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).toContain("script-src 'self'");
    const links = assetsOf(await res.text());
    expect(links).toHaveLength(4);
    for (const link of links) expect(link).toMatch(/^docs\/assets\/[a-z0-9-]+\.[0-9a-f]{12}\.(js|css|png)$/);
  });

  it('serves each asset with its content type, a year of immutable caching, and gzip when accepted', async () => {
    const links = assetsOf(await (await get('/v1/docs')).text());
    const types: Record<string, string> = {
      js: 'text/javascript; charset=utf-8',
      css: 'text/css; charset=utf-8',
      png: 'image/png',
    };
    for (const link of links) {
      const extension = link.slice(link.lastIndexOf('.') + 1);
      const plain = await get(`/v1/${link}`, { 'accept-encoding': 'identity' });
      expect(plain.status).toBe(200);
      expect(plain.headers.get('content-type')).toBe(types[extension]);
      expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(plain.headers.get('content-encoding')).toBeNull();
      const bytes = Buffer.from(await plain.arrayBuffer());
      if (extension === 'png') {
        expect(bytes.subarray(1, 4).toString()).toBe('PNG');
        continue;
      }
      // fetch would decode gzip itself: read the encoded bytes with node's http client instead.
      const { request } = await import('node:http');
      const encoded = await new Promise<{ encoding?: string; body: Buffer }>((resolve, reject) => {
        request(`${apiUrl}/v1/${link}`, { headers: { 'accept-encoding': 'gzip, br;q=0' } }, (r) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () =>
            resolve({ encoding: r.headers['content-encoding'], body: Buffer.concat(chunks) }),
          );
        })
          .on('error', reject)
          .end();
      });
      expect(encoded.encoding).toBe('gzip');
      expect(encoded.body.length).toBeLessThan(bytes.length);
      expect(gunzipSync(encoded.body).equals(bytes)).toBe(true);
    }
    // The largest answer stays far within Lambda's 6 MB response limit, even base64-encoded.
    const script = links.find((l) => l.endsWith('.js') && l.includes('bundle')) as string;
    const size = Buffer.from(
      await (await get(`/v1/${script}`, { 'accept-encoding': 'identity' })).arrayBuffer(),
    );
    expect(Math.ceil(size.length / 3) * 4).toBeLessThan(6 * 1024 * 1024);
  });

  it('answers an unknown asset with 404 not_found', async () => {
    expectProblem(await call('GET', '/v1/docs/assets/swagger-ui.000000000000.css'), 404, 'not_found');
  });

  it('is not metered, even when a credential is sent along', async () => {
    const tenant = await createTenant();
    const headers = { 'x-api-key': tenant.apiKey };
    const before = await call('GET', '/v1/usage', { headers });
    await get('/v1/docs', headers);
    await get('/v1/openapi.json', headers);
    const after = await call('GET', '/v1/usage', { headers });
    const meter = (r: typeof before) =>
      (r.json.usage as { meters: { api_requests: number } }).meters.api_requests;
    expect(meter(after)).toBe(meter(before) + 1);
  });
});
