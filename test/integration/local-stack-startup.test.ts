import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startStackProcess } from './local-stack-process';

interface Answer {
  status: number;
  code?: string;
  retryAfter: string | null;
}

/** Asks `url` every few milliseconds from now on, until it answers 200 or `stop` is set. */
const pollUntilOk = (url: string, stop: { done: boolean }) => {
  const answers: Answer[] = [];
  let refused = 0;
  const finished = (async () => {
    while (!stop.done) {
      const answer = await fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
        async (r) => ({
          status: r.status,
          retryAfter: r.headers.get('retry-after'),
          ...(r.status === 200 ? {} : { code: ((await r.json()) as { code?: string }).code }),
        }),
        () => undefined,
      );
      if (answer) answers.push(answer);
      else refused++;
      if (answer?.status === 200) return;
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  return { answers, refused: () => refused, finished };
};

/** A connection opened as soon as the port takes one, on which nothing is sent (yet). */
const holdIdleConnection = async (port: number, stop: { done: boolean }): Promise<Socket | undefined> => {
  while (!stop.done) {
    const socket = await new Promise<Socket | undefined>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => resolve(s));
      s.once('error', () => resolve(undefined));
    });
    if (socket) return socket;
    await new Promise((r) => setTimeout(r, 5));
  }
  return undefined;
};

/** One HTTP/1.1 request written on an open socket, and the status line of its answer. */
const requestOn = (socket: Socket, path: string): Promise<string> =>
  new Promise((resolve, reject) => {
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
      const line = received.split('\r\n')[0];
      if (received.includes('\r\n')) resolve(line ?? '');
    });
    socket.once('error', reject);
    socket.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
  });

describe('local stack start-up', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'api-v1-startup-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('answers a client that polls from the first moment and an idle connection held open, and starts', async () => {
    const port = await freePort();
    const stop = { done: false };
    // The client starts before the stack: it is refused until the port listens, then answered.
    const poller = pollUntilOk(`http://127.0.0.1:${port}/v1/public/plans`, stop);
    const idle = holdIdleConnection(port, stop);
    const stack = await startStackProcess(dataDir, undefined, { port }).catch((error: unknown) => {
      stop.done = true;
      throw error;
    });
    try {
      expect(stack.description.apiUrl).toBe(`http://127.0.0.1:${port}`);
      await poller.finished;
      const last = poller.answers.at(-1);
      expect(last?.status, JSON.stringify(poller.answers.slice(-3))).toBe(200);
      // Before the handlers were ready the probe was told so, never left waiting on its connection.
      const early = poller.answers.slice(0, -1);
      expect(early.length).toBeGreaterThan(0);
      for (const answer of early) {
        expect(answer).toEqual({ status: 503, code: 'service_unavailable', retryAfter: '1' });
      }
      // The connection opened during start-up and idle since is served by the ready gateway.
      const socket = await idle;
      expect(socket).toBeDefined();
      expect(await requestOn(socket as Socket, '/v1/public/plans')).toBe('HTTP/1.1 200 OK');
      socket?.destroy();
    } finally {
      stop.done = true;
      // An idle connection left open does not hold the stop up either.
      const held = await holdIdleConnection(port, { done: false });
      expect(await stack.stop('SIGTERM')).toBe(0);
      held?.destroy();
    }
  }, 180_000);
});
