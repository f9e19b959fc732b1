import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import type { StackDescription } from '../../functions/local/stack';

export interface StackProcess {
  child: ChildProcess;
  description: StackDescription;
  demoApiKey: string;
  output: () => string;
  /** Every problem code the stack's gateway answered, from its access log (`problemCode`). */
  answeredCodes: () => Set<string>;
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

const root = join(import.meta.dirname, '..', '..');

/** A loopback port free a moment ago, so a client can poll it before the stack says where it listens. */
export const freePort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
};

/** The stacks under test reuse authorizer decisions this long, so revocation tests wait only briefly. */
export const AUTHORIZER_CACHE_TTL_SECONDS = 1;

/** The stacks under test hand a sync workflow run to the async engine after this many ms. */
export const WORKFLOW_SYNC_DEADLINE_MS = 16_000;

/**
 * Webhook timing of the stacks under test: retries 1–2 s apart, endpoints disabled after 8 s of failures,
 * so a test sees an endpoint disabled within seconds. A test may pass its own (`startStackProcess`).
 */
export const TEST_WEBHOOK_TIMING = [
  '--webhook-retry-cap=2s',
  '--webhook-retry-window=60s',
  '--webhook-disable-after=8s',
] as const;

/**
 * Starts `bin/local.ts` (what `npm start` runs) as a child process on a random port with the given data
 * directory, and waits until it has written its stack file. The child stops when this process goes away.
 * The tests' webhook receivers and HTTP targets listen on loopback: the stack is started with the loopback
 * allowance (the stack's own ports stay refused).
 */
export const startStackProcess = async (
  dataDir: string,
  webhookTiming: readonly string[] = TEST_WEBHOOK_TIMING,
  { port = 0 }: { port?: number } = {},
): Promise<StackProcess> => {
  const stackFile = join(dataDir, 'stack.json');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'bin/local.ts', '--allow-loopback-outbound', '--exit-with-parent', ...webhookTiming],
    {
      cwd: root,
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        PORT: String(port),
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        AUTHORIZER_CACHE_TTL_SECONDS: String(AUTHORIZER_CACHE_TTL_SECONDS),
        // Short enough that a test can pass it with a slow step (the sync-to-async hand-off).
        WORKFLOW_SYNC_DEADLINE_MS: String(WORKFLOW_SYNC_DEADLINE_MS),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const answeredCodes = new Set<string>();
  let partialLine = '';
  // Everything the stack prints, kept whole in the data directory too: tests search its logs.
  const log = join(dataDir, 'stack-output.log');
  child.stdout?.on('data', (c: Buffer) => {
    appendFileSync(log, c);
    output = (output + c.toString()).slice(-200_000);
    const lines = (partialLine + c.toString()).split('\n');
    partialLine = lines.pop() ?? '';
    for (const line of lines) {
      const code = /"problemCode":"([a-z_]+)"/.exec(line)?.[1];
      if (code) answeredCodes.add(code);
    }
  });
  child.stderr?.on('data', (c: Buffer) => {
    appendFileSync(log, c);
    output = (output + c.toString()).slice(-200_000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 90_000;
  while (!(existsSync(stackFile) && output.includes('local stack ready'))) {
    if (child.exitCode !== null) throw new Error(`local stack exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`local stack did not start in time:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const description = JSON.parse(readFileSync(stackFile, 'utf8')) as StackDescription;
  return {
    child,
    description,
    demoApiKey: readFileSync(join(dataDir, 'demo-api-key'), 'utf8').trim(),
    output: () => output,
    answeredCodes: () => answeredCodes,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
};
