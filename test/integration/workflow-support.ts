import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { call, runAdmin } from './support';

/** Saves a definition with the operator CLI (`workflows put --json`); returns the CLI's answer. */
export const putWorkflow = async (companyId: string, definition: unknown) => {
  const dir = mkdtempSync(join(tmpdir(), 'wf-'));
  try {
    const file = join(dir, 'wf.json');
    writeFileSync(file, JSON.stringify(definition));
    return await runAdmin('workflows', 'put', '--company', companyId, '--file', file, '--json');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

export const savedWorkflow = async (
  companyId: string,
  definition: { id: string } & Record<string, unknown>,
) => {
  const saved = await putWorkflow(companyId, definition);
  expect(saved.code, saved.err).toBe(0);
  return JSON.parse(saved.out) as { id: string; version: number };
};

export const runWorkflow = (apiKey: string, id: string, body: Record<string, unknown> = {}, headers = {}) =>
  call('POST', `/v1/workflows/${id}/run`, { headers: { 'x-api-key': apiKey, ...headers }, body });

export const getRun = (apiKey: string, id: string, runId: string, query = '') =>
  call('GET', `/v1/workflows/${id}/runs/${runId}${query}`, { headers: { 'x-api-key': apiKey } });

export type RunBody = {
  runId: string;
  status: string;
  ok: boolean;
  result: Record<string, unknown> | null;
  files: { bucket: string; fullPath: string }[];
  logs: { step: string; action: string; status: string; durationMs: number }[];
  error: { code: string } | null;
  failedSteps: { step: string; code: string; userMessage: string; handled?: true }[];
  executionTimeMs: number;
  stepOutputs?: { step: string; output?: unknown }[];
  handedOffAt?: string | null;
  version?: number;
};

/** Polls the run until it is no longer `running`. */
export const waitForRun = async (
  apiKey: string,
  id: string,
  runId: string,
  timeoutMs = 30_000,
): Promise<RunBody> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await getRun(apiKey, id, runId);
    expect(res.status).toBe(200);
    const run = res.json.run as RunBody;
    if (run.status !== 'running') return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} still running: ${JSON.stringify(run)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

/**
 * A loopback HTTP server for the http action: `/json` echoes the request as JSON, `/slow?ms=N` answers after
 * N ms, `/deep` answers deeply nested JSON.
 */
export const startTarget = async () => {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = () =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            path: url.pathname,
            method: req.method,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      if (url.pathname === '/deep') {
        // JSON nested deeper than a DynamoDB map may be, with an empty key.
        let deep: unknown = { '': 'bottom' };
        for (let i = 0; i < 40; i++) deep = { a: deep };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(deep));
        return;
      }
      const ms = Number(url.searchParams.get('ms') ?? 0);
      if (ms > 0) setTimeout(answer, ms);
      else answer();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
};
