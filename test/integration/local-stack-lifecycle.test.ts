import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startStackProcess } from './local-stack-process';

/** Processes whose command line mentions the data directory (the stack and its DynamoDB Local). */
const processesUsing = (dataDir: string): string[] =>
  execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(dataDir) && !line.includes('ps -eo'));

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
});
