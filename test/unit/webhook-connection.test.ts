import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  postWebhook,
  type ResolveAll,
  WebhookRejectedError,
} from '../../functions/shared/domain/messages/webhooks';

/** A host name that resolves to a public address at the first look and to loopback afterwards. */
const rebinding = (): { resolve: ResolveAll; calls: () => number } => {
  let calls = 0;
  return {
    calls: () => calls,
    resolve: (_host, _options, callback) => {
      calls++;
      callback(null, [{ address: calls === 1 ? '93.184.216.34' : '127.0.0.1', family: 4 }]);
    },
  };
};

let loopbackLookups = 0;
const toLoopback: ResolveAll = (_host, _options, callback) => {
  loopbackLookups++;
  callback(null, [{ address: '127.0.0.1', family: 4 }]);
};

let server: Server;
let port = 0;
let received = 0;
let connections = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    received++;
    req.resume();
    if (req.url === '/redirect') {
      res.writeHead(302, { location: '/elsewhere' }).end();
      return;
    }
    res.writeHead(204).end();
  });
  server.on('connection', () => {
    connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('webhook connections', () => {
  it('checks the address it connects to: a host re-pointed at loopback after a check is refused', async () => {
    const { resolve, calls } = rebinding();
    // The first resolution (what a check before the request would see) is public.
    await new Promise<void>((done) => resolve('hooks.test', { all: true }, () => done()));
    const before = connections;
    await expect(
      postWebhook(`https://hooks.test:${port}/x`, {}, '{}', {
        allowLoopback: false,
        timeoutMs: 2000,
        resolve,
      }),
    ).rejects.toBeInstanceOf(WebhookRejectedError);
    expect(calls()).toBe(2);
    expect(connections).toBe(before);
  });

  it('connects to the address its own lookup resolved', async () => {
    const before = received;
    const answer = await postWebhook(`http://localhost:${port}/x`, {}, '{}', {
      allowLoopback: true,
      timeoutMs: 2000,
      resolve: toLoopback,
    });
    expect(answer.status).toBe(204);
    expect(received).toBe(before + 1);
    expect(loopbackLookups).toBeGreaterThan(0);
  });

  it('does not follow redirects', async () => {
    const before = received;
    const answer = await postWebhook(`http://localhost:${port}/redirect`, {}, '{}', {
      allowLoopback: true,
      timeoutMs: 2000,
      resolve: toLoopback,
    });
    expect(answer.status).toBe(302);
    expect(received).toBe(before + 1);
  });
});
