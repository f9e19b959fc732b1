import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { StackDescription } from '../../functions/local/stack';
import { startStackProcess } from './local-stack-process';
import { eventually } from './webhook-receiver';

/** Processes whose command line mentions the data directory (the stack and its DynamoDB Local). */
const processesUsing = (dataDir: string): string[] =>
  execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(dataDir) && !line.includes('ps -eo'));

/** Every descendant of `pid` (children, their children, ...). */
const descendantsOf = (pid: number): number[] => {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  for (let queue = [pid]; queue.length > 0; ) {
    const parent = queue.shift();
    const children = rows.filter(([, ppid]) => ppid === parent).map(([child]) => child);
    found.push(...children);
    queue = [...queue, ...children];
  }
  return found;
};

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const answers = (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(2000) }).then(
    () => true,
    () => false,
  );

const selfWith = async (apiUrl: string, key: string) =>
  fetch(`${apiUrl}/v1/self`, { headers: { 'x-api-key': key } }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as { company?: { id: string } },
  }));

describe('local stack lifecycle', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'api-v1-lifecycle-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps all data across a restart and stops every process it started on SIGTERM', async () => {
    const first = await startStackProcess(dataDir);
    const javaBefore = processesUsing(dataDir).filter((l) => l.includes('java'));
    expect(javaBefore).toHaveLength(1);
    const firstKey = first.demoApiKey;
    const before = await selfWith(first.description.apiUrl, firstKey);
    expect(before.status).toBe(200);

    expect(await first.stop('SIGTERM')).toBe(0);
    expect(processesUsing(dataDir)).toEqual([]);

    const second = await startStackProcess(dataDir);
    try {
      expect(second.demoApiKey).toBe(firstKey);
      expect(second.output()).not.toContain('shown once');
      const after = await selfWith(second.description.apiUrl, firstKey);
      expect(after.status).toBe(200);
      expect(after.body.company?.id).toBe(before.body.company?.id);
    } finally {
      expect(await second.stop('SIGINT')).toBe(0);
    }
    expect(processesUsing(dataDir)).toEqual([]);
  }, 180_000);

  // A supervisor or a harness signals the process it started: `npm`, whose script runs the stack.
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    it(`stops every process of npm start when the npm process gets ${signal}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'api-v1-npm-start-'));
      const npm = spawn('npm', ['start'], {
        cwd: join(import.meta.dirname, '..', '..'),
        env: { ...process.env, DATA_DIR: dir, PORT: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      let started: number[] = [];
      npm.stdout.on('data', (c: Buffer) => {
        output += c.toString();
      });
      npm.stderr.on('data', (c: Buffer) => {
        output += c.toString();
      });
      try {
        const ready = await eventually(
          () => existsSync(join(dir, 'stack.json')) && output.includes('local stack ready'),
          (r) => r,
          90_000,
        );
        expect(ready, output).toBe(true);
        const d = JSON.parse(readFileSync(join(dir, 'stack.json'), 'utf8')) as StackDescription;
        started = descendantsOf(npm.pid as number);
        expect(processesUsing(dir).filter((l) => l.includes('java'))).toHaveLength(1);
        expect(await answers(`${d.apiUrl}/v1/self`)).toBe(true);

        npm.kill(signal);
        const left = await eventually(
          () => started.filter(alive),
          (pids) => pids.length === 0,
          30_000,
        );
        expect(left, output).toEqual([]);
        expect(processesUsing(dir)).toEqual([]);
        expect(await answers(`${d.apiUrl}/v1/self`)).toBe(false);
        expect(await answers(d.dynamodbEndpoint)).toBe(false);
        expect(await answers(d.s3Endpoint)).toBe(false);
      } finally {
        for (const pid of [npm.pid as number, ...started]) if (alive(pid)) process.kill(pid, 'SIGKILL');
        rmSync(dir, { recursive: true, force: true });
      }
    }, 180_000);
  }
});
