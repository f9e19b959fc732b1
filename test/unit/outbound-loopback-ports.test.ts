import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { postWebhook, WebhookRejectedError } from '../../functions/shared/domain/messages/webhooks';
import {
  allAddressesAllowed,
  type OutboundPolicy,
  outboundUrlProblem,
  type ResolveAll,
  refusingLookup,
} from '../../functions/shared/outbound-addresses';

/** The local stack's shape: loopback allowed, its own services' ports denied. */
const LOCAL: OutboundPolicy = { allowLoopback: true, deniedLoopbackPorts: [8000, 9000, 443] };

const toLoopback: ResolveAll = (_host, _options, callback) =>
  callback(null, [{ address: '127.0.0.1', family: 4 }]);

/** Runs a `refusingLookup` as a connection would, answering the error or the address it gave. */
const lookUp = (policy: OutboundPolicy, port: number) =>
  new Promise<Error | string>((resolve) =>
    refusingLookup(
      policy,
      port,
      () => new Error('refused'),
      toLoopback,
    )('stack.test', {}, (error, address) => resolve(error ?? String(address))),
  );

describe('loopback ports of the platform', () => {
  it('refuses a literal loopback URL on a denied port, in every spelling of loopback', () => {
    for (const url of [
      'http://127.0.0.1:8000/',
      'http://127.0.0.2:8000/',
      'http://localhost:9000/bucket',
      'http://[::1]:8000/',
      'http://[::ffff:127.0.0.1]:9000/',
      'http://0x7f000001:8000/',
      'https://127.0.0.1/',
      'https://localhost:443/',
    ]) {
      expect(outboundUrlProblem(url, LOCAL), url).toMatch(/loopback port \d+: .*platform's own services/);
    }
  });

  it('counts the scheme default port: http://127.0.0.1/ is port 80, refused when 80 is denied', () => {
    expect(outboundUrlProblem('http://127.0.0.1/', LOCAL)).toBeUndefined();
    expect(outboundUrlProblem('http://127.0.0.1/', { ...LOCAL, deniedLoopbackPorts: [80] })).toBeDefined();
  });

  it('accepts loopback on any other port, and leaves public URLs alone', () => {
    expect(outboundUrlProblem('http://127.0.0.1:8001/hook', LOCAL)).toBeUndefined();
    expect(outboundUrlProblem('http://localhost:12345/hook', LOCAL)).toBeUndefined();
    expect(outboundUrlProblem('https://hooks.example.com:8000/hook', LOCAL)).toBeUndefined();
  });

  it('keeps refusing all loopback when the allowance is off, denied ports or not', () => {
    const aws: OutboundPolicy = { allowLoopback: false };
    expect(outboundUrlProblem('http://127.0.0.1:8001/', aws)).toBe('must not point at a loopback address');
    expect(outboundUrlProblem('http://127.0.0.1:8000/', { ...LOCAL, allowLoopback: false })).toBe(
      'must not point at a loopback address',
    );
  });

  it('classes resolved addresses with the port connected to', () => {
    expect(allAddressesAllowed(['127.0.0.1'], 8001, LOCAL)).toBe(true);
    expect(allAddressesAllowed(['127.0.0.1'], 8000, LOCAL)).toBe(false);
    expect(allAddressesAllowed(['93.184.216.34', '::1'], 9000, LOCAL)).toBe(false);
    expect(allAddressesAllowed(['93.184.216.34'], 9000, LOCAL)).toBe(true);
  });

  it('refuses at connection time a host name resolving to loopback on a denied port', async () => {
    expect(await lookUp(LOCAL, 8000)).toBeInstanceOf(Error);
    expect(await lookUp(LOCAL, 8001)).toBe('127.0.0.1');
  });
});

describe('a webhook to a host name that resolves to a denied loopback port', () => {
  let server: Server;
  let port = 0;
  let received = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      received++;
      req.resume();
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('is refused at connection time, before connecting, while a receiver on another port answers', async () => {
    const options = { allowLoopback: true, timeoutMs: 2000, resolve: toLoopback };
    // A host name passes the URL check; its resolved address and the port are judged when connecting.
    await expect(
      postWebhook(`https://stack.test:${port}/x`, {}, '{}', { ...options, deniedLoopbackPorts: [port] }),
    ).rejects.toBeInstanceOf(WebhookRejectedError);
    expect(received).toBe(0);
    const answer = await postWebhook(`http://localhost:${port}/x`, {}, '{}', {
      ...options,
      deniedLoopbackPorts: [port + 1],
    });
    expect(answer.status).toBe(204);
    expect(received).toBe(1);
  });
});

describe('the outbound setting of the environment', () => {
  const outbound = async (variables: Record<string, string | undefined>) => {
    vi.resetModules();
    const saved = { ...process.env };
    Object.assign(process.env, { TABLE_NAME: 't', BUCKET_NAME: 'b' });
    for (const [name, value] of Object.entries(variables)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    try {
      const { env } = await import('../../functions/shared/env');
      return env().outbound;
    } finally {
      process.env = saved;
    }
  };

  it('allows no loopback without ALLOW_LOOPBACK_WEBHOOKS', async () => {
    expect(
      await outbound({ ALLOW_LOOPBACK_WEBHOOKS: undefined, OUTBOUND_DENIED_LOOPBACK_PORTS: '8000' }),
    ).toEqual({ allowLoopback: false, deniedLoopbackPorts: [] });
  });

  it('reads the denied ports with the allowance', async () => {
    expect(
      await outbound({ ALLOW_LOOPBACK_WEBHOOKS: 'true', OUTBOUND_DENIED_LOOPBACK_PORTS: '8000, 9000' }),
    ).toEqual({ allowLoopback: true, deniedLoopbackPorts: [8000, 9000] });
  });

  it('fails fast when the allowance comes without the denied ports, or with a malformed list', async () => {
    await expect(
      outbound({ ALLOW_LOOPBACK_WEBHOOKS: 'true', OUTBOUND_DENIED_LOOPBACK_PORTS: undefined }),
    ).rejects.toThrow(/OUTBOUND_DENIED_LOOPBACK_PORTS/);
    await expect(
      outbound({ ALLOW_LOOPBACK_WEBHOOKS: 'true', OUTBOUND_DENIED_LOOPBACK_PORTS: '8000,x' }),
    ).rejects.toThrow(/OUTBOUND_DENIED_LOOPBACK_PORTS/);
  });
});
