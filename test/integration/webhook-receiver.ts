import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A webhook receiver on loopback for the event tests: records every request, answers each path with the
 * statuses queued for it (then 200), optionally after a delay, and tracks how many requests of one
 * resource were in flight at once.
 */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: { id: string; type: string; createdAt: string; data: Record<string, unknown> };
  at: number;
}

export const startReceiver = async () => {
  const received: Received[] = [];
  /** Requests as they arrive (before their answer): `{path, at}`. */
  const arrived: { path: string; at: number }[] = [];
  const statuses = new Map<string, number[]>();
  const delays = new Map<string, number>();
  const inFlight = new Map<string, number>();
  let maxInFlightPerResource = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const path = req.url ?? '/';
      arrived.push({ path, at: Date.now() });
      let json: Received['json'];
      try {
        json = JSON.parse(body) as Received['json'];
      } catch {
        json = { id: '', type: '', createdAt: '', data: {} };
      }
      const resource = `${path}#${String(json.data?.id ?? json.data?._id ?? '')}`;
      const now = (inFlight.get(resource) ?? 0) + 1;
      inFlight.set(resource, now);
      maxInFlightPerResource = Math.max(maxInFlightPerResource, now);
      const status = statuses.get(path)?.shift() ?? 200;
      setTimeout(() => {
        inFlight.set(resource, (inFlight.get(resource) ?? 1) - 1);
        received.push({ path, headers: req.headers, body, json, at: Date.now() });
        res.writeHead(status).end();
      }, delays.get(path) ?? 0);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    received,
    /** Statuses answered to the next requests of `path` (then 200). */
    answer: (path: string, list: number[]) => statuses.set(path, [...list]),
    /** Answers every request of `path` after `ms`. */
    delay: (path: string, ms: number) => delays.set(path, ms),
    maxInFlightPerResource: () => maxInFlightPerResource,
    of: (path: string) => received.filter((r) => r.path === path),
    /** Requests of `path` that arrived, answered or not. */
    arrivals: (path: string) => arrived.filter((r) => r.path === path),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
};

/** Standard Webhooks verification, written from the specification (not with the platform's own code). */
export const verifySignature = (
  secret: string,
  r: Pick<Received, 'headers' | 'body'>,
  nowSeconds = Date.now() / 1000,
): boolean => {
  const id = String(r.headers['webhook-id']);
  const timestamp = String(r.headers['webhook-timestamp']);
  if (Math.abs(nowSeconds - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${r.body}`).digest('base64');
  return String(r.headers['webhook-signature'])
    .split(' ')
    .some((sig) => {
      const [version, value = ''] = sig.split(',');
      return (
        version === 'v1' &&
        value.length === expected.length &&
        timingSafeEqual(Buffer.from(value), Buffer.from(expected))
      );
    });
};

export const eventually = async <T>(
  read: () => Promise<T> | T,
  done: (v: T) => boolean,
  ms = 30_000,
): Promise<T> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
};
