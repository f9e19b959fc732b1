import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { markdownDocument } from '../fixtures/long-markdown';
import { apiOf, demoCompanyId, tableOf } from './crash-support';
import { startStackProcess } from './local-stack-process';
import './support';

describe('local stack killed during a speech job', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'api-v1-speech-job-crash-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('marks the job failed with code interrupted, clears the lease, releases the slot and bills nothing', async () => {
    const { SPEECH_JOB_TYPE } = await import('../../functions/shared/domain/speech-jobs');
    const first = await startStackProcess(dataDir);
    const companyId = await demoCompanyId(first);
    const markdown = markdownDocument(6_000, `crash${Date.now().toString(36)}`);
    const created = await apiOf(first)('POST', '/v1/speech/jobs', { markdown });
    expect(created.status, JSON.stringify(created.json)).toBe(202);
    const id = String((created.json.job as { id: string }).id);
    // Killed while espeak-ng and ffmpeg are at work.
    for (;;) {
      const { json } = await apiOf(first)('GET', `/v1/speech/jobs/${id}`);
      const status = (json.job as { status: string }).status;
      expect(['pending', 'synthesizing']).toContain(status);
      if (status === 'synthesizing') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await first.stop('SIGKILL');

    const second = await startStackProcess(dataDir);
    try {
      const { status, json } = await apiOf(second)('GET', `/v1/speech/jobs/${id}`);
      expect(status).toBe(200);
      expect(json.job).toMatchObject({
        status: 'failed',
        billedCharacters: 0,
        result: null,
        error: { code: 'interrupted' },
      });
      const db = tableOf(second);
      const read = (key: { pk: string; sk: string }) =>
        db.send(new GetCommand({ TableName: second.description.tableName, Key: key, ConsistentRead: true }));
      const item = await read(SPEECH_JOB_TYPE.lifecycle.jobKey(companyId, id));
      expect(item.Item?.leaseUntil).toBeUndefined();
      expect(item.Item?.workpk).toBeUndefined();
      expect((await read(SPEECH_JOB_TYPE.lifecycle.queueKey(companyId))).Item?.unfinished).toBe(0);
    } finally {
      await second.stop('SIGTERM');
    }
  }, 240_000);
});
