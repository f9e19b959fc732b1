import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiUrl, createTenant } from '../../../test/integration/support';
import { RECORDINGS } from '../../../test/integration/transcription-support';

/**
 * The programs of `sdk/examples/`, each run as its user runs it (Node with `tsx`, the package imported by
 * its name and resolved to the built `dist/`) against the local stack, with a fresh company's API key in
 * `API_KEY` and the stack in `API_BASE_URL`: each must exit 0 and print what it promises. They run at once.
 */
const sdk = join(import.meta.dirname, '..', '..');
const root = join(sdk, '..');
const TIMEOUT_MS = 90_000;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const runExample = async (name: string, args: string[] = []): Promise<Run> => {
  const { apiKey } = await createTenant({ plan: 'starter' });
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(sdk, 'examples', `${name}.ts`), ...args],
      {
        cwd: root,
        timeout: TIMEOUT_MS,
        env: { ...process.env, API_BASE_URL: apiUrl, API_KEY: apiKey, NODE_NO_WARNINGS: '1' },
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, stdout, stderr });
      },
    );
  });
};

const succeeded = (run: Run) => {
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return run.stdout.trim().split('\n');
};

beforeAll(() => {
  if (!existsSync(join(sdk, 'dist'))) throw new Error('sdk/dist is missing: npm run sdk:build');
});

describe.concurrent(
  'the SDK examples against the local stack',
  () => {
    it('quick-start: the company, then the contacts it created, two a page', async () => {
      const lines = succeeded(await runExample('quick-start'));
      expect(lines[0]).toMatch(/^company: Tenant /);
      expect(lines.slice(1).sort()).toEqual(
        ['Ada Lovelace', 'Alan Turing', 'Grace Hopper'].map((name) => `contact: ${name}`),
      );
    });

    it('transcode: uploads a recording and waits for its FLAC', async () => {
      const lines = succeeded(await runExample('transcode', [RECORDINGS.dashwood.file]));
      expect(lines).toEqual([
        expect.stringMatching(/^uploaded: companies\/.+\.wav \(\d+ bytes\)$/),
        expect.stringMatching(/^transcode done: companies\/.+\.flac$/),
        expect.stringMatching(/^download: \/.+\.flac$/),
      ]);
    });

    it('transcription: uploads a recording and waits for its text', async () => {
      const lines = succeeded(await runExample('transcription', [RECORDINGS.dashwood.file]));
      expect(lines).toEqual([expect.stringMatching(/^transcription done: .*consider/)]);
    });

    it('speech: synthesizes a job and waits for its audio', async () => {
      const lines = succeeded(await runExample('speech'));
      expect(lines).toEqual([expect.stringMatching(/^speech done: companies\/.+\.mp3$/)]);
    });

    it('workflow: defines one, runs it asynchronously and waits for the result', async () => {
      const lines = succeeded(await runExample('workflow'));
      expect(lines).toEqual([
        expect.stringMatching(/^run success: {"contactId":"\w+","name":"Ada Lovelace"}$/),
      ]);
    });

    it('webhook: verifies the delivery of a test event', async () => {
      const lines = succeeded(await runExample('webhook'));
      expect(lines).toEqual([
        expect.stringMatching(/^sent: ping evt_/),
        expect.stringMatching(/^verified: ping evt_/),
        'delivery verified',
      ]);
      expect(lines[1]?.replace('verified', 'sent')).toBe(lines[0]);
    });
  },
  TIMEOUT_MS + 10_000,
);
