import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { StackProcess } from './local-stack-process';

/**
 * Helpers of the tests that kill a stack of their own (`kill -9`) and start it again on the same data: the
 * API and the table of that stack (not the shared one of the test run), and an HTTP target that records
 * requests as they arrive, so a test kills the stack while one is in flight.
 */
const root = join(import.meta.dirname, '..', '..');

export const tableOf = (stack: StackProcess) =>
  DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: stack.description.dynamodbEndpoint,
      region: stack.description.region,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  );

export const apiOf = (stack: StackProcess) => async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${stack.description.apiUrl}${path}`, {
    method,
    headers: { 'x-api-key': stack.demoApiKey, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
};

export const demoCompanyId = async (stack: StackProcess): Promise<string> =>
  ((await apiOf(stack)('GET', '/v1/self')).json as { company: { id: string } }).company.id;

/** Runs the operator CLI as its own process against the stack's data directory. */
export const runAdminInto = async (stack: StackProcess, args: readonly string[]): Promise<string> =>
  (
    await promisify(execFile)(process.execPath, ['--import', 'tsx', 'bin/admin.ts', ...args], {
      cwd: root,
      env: { ...process.env, DATA_DIR: stack.description.dataDir },
    })
  ).stdout;

/** Saves a workflow with the operator CLI run as its own process against the stack's data directory. */
export const putWorkflowInto = async (stack: StackProcess, companyId: string, definition: unknown) => {
  const dir = mkdtempSync(join(tmpdir(), 'wf-'));
  try {
    const file = join(dir, 'wf.json');
    writeFileSync(file, JSON.stringify(definition));
    await runAdminInto(stack, ['workflows', 'put', '--company', companyId, '--file', file]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

/** An HTTP target: `/slow` answers after `slowMs`, anything else at once; arrivals are recorded. */
export const startRecordingTarget = async (slowMs: number) => {
  const arrived: string[] = [];
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    arrived.push(path);
    const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    if (path.startsWith('/slow')) setTimeout(answer, slowMs).unref();
    else answer();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrived,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
};
