import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { apiUrl, call, createTenant } from './support';

/**
 * Sends a request with exactly the header lines given (fetch would join repeated headers into one), and
 * returns the status and the parsed problem.
 */
const rawGet = (path: string, lines: [string, string][]): Promise<{ status: number; body: string }> => {
  const url = new URL(`${apiUrl}${path}`);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      const head = lines.map(([name, value]) => `${name}: ${value}\r\n`).join('');
      socket.write(`GET ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\nconnection: close\r\n${head}\r\n`);
    });
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('utf8');
    });
    socket.on('end', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
    socket.on('error', reject);
  });
};

describe('ambiguous credentials', () => {
  it.each([
    [
      'x-api-key twice',
      (key: string) => [
        ['x-api-key', key],
        ['x-api-key', key],
      ],
    ],
    [
      'X-Api-Key and x-api-key',
      (key: string) => [
        ['X-Api-Key', key],
        ['x-api-key', key],
      ],
    ],
    [
      'x-api-key twice, one invalid',
      (key: string) => [
        ['x-api-key', 'sk-nope'],
        ['x-api-key', key],
      ],
    ],
    [
      'x-auth-token twice',
      (key: string) => [
        ['x-auth-token', key],
        ['X-AUTH-TOKEN', key],
      ],
    ],
    [
      'x-jwt-token twice over a valid key',
      (key: string) => [
        ['x-jwt-token', 'a.b.c'],
        ['x-jwt-token', 'a.b.c'],
        ['x-api-key', key],
      ],
    ],
    [
      'Authorization twice beside a valid key',
      (key: string) => [
        ['Authorization', 'Bearer a'],
        ['authorization', 'Bearer b'],
        ['x-api-key', key],
      ],
    ],
  ] as [string, (key: string) => [string, string][]][])('refuses %s with 401', async (_name, lines) => {
    const t = await createTenant();
    const res = await rawGet('/v1/self', lines(t.apiKey));
    expect(res.status, res.body).toBe(401);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'unauthorized', status: 401 });
  });

  it('accepts the same key sent once', async () => {
    const t = await createTenant();
    expect((await rawGet('/v1/self', [['X-Api-Key', t.apiKey]])).status).toBe(200);
    expect((await call('GET', '/v1/self', { headers: { 'x-api-key': t.apiKey } })).status).toBe(200);
  });
});
