import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { startStackProcess } from './local-stack-process';
import './support';

describe('local stack restart with unfinished transcription jobs', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'api-v1-transcription-restart-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('marks them failed with code interrupted, clears the lease and releases the queue slot', async () => {
    const { lifecycle: transcriptionJobs } = (await import('../../functions/shared/domain/transcriptions'))
      .transcriptionJobs;
    const first = await startStackProcess(dataDir);
    const { tableName, region } = first.description;
    const client = (endpoint: string) =>
      DynamoDBDocumentClient.from(
        new DynamoDBClient({
          endpoint,
          region,
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }),
      );
    const db = client(first.description.dynamodbEndpoint);
    const self = await fetch(`${first.description.apiUrl}/v1/self`, {
      headers: { 'x-api-key': first.demoApiKey },
    }).then((r) => r.json() as Promise<{ company: { id: string } }>);
    const companyId = self.company.id;
    const now = new Date().toISOString();
    const jobId = 'tr_interrupted1';
    // A job caught mid-transcription, as a killed stack leaves it: transcribing, a live lease, one slot.
    await db.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...transcriptionJobs.jobKey(companyId, jobId),
          ...transcriptionJobs.unfinishedIndexKey(companyId, jobId),
          entity: 'transcription_job',
          jobId,
          companyId,
          status: 'transcribing',
          language: 'en-US',
          source: {
            bucket: first.description.bucketName,
            fullPath: `companies/${companyId}/a.wav`,
            size: 1,
            etag: 'x',
          },
          progress: { phase: 'transcribing', percent: 10 },
          attempt: 1,
          reused: false,
          billedSeconds: 0,
          leaseUntil: new Date(Date.now() + 3_600_000).toISOString(),
          createdAt: now,
          updatedAt: now,
          attemptStartedAt: now,
        },
      }),
    );
    await db.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...transcriptionJobs.queueKey(companyId), unfinished: 1 },
      }),
    );
    expect(await first.stop('SIGTERM')).toBe(0);

    const second = await startStackProcess(dataDir);
    try {
      const get = await fetch(`${second.description.apiUrl}/v1/transcriptions/${jobId}`, {
        headers: { 'x-api-key': second.demoApiKey },
      });
      expect(get.status).toBe(200);
      const { job } = (await get.json()) as { job: Record<string, unknown> };
      expect(job).toMatchObject({
        status: 'failed',
        billedSeconds: 0,
        result: null,
        error: { code: 'interrupted' },
      });
      const db2 = client(second.description.dynamodbEndpoint);
      const item = await db2.send(
        new GetCommand({
          TableName: tableName,
          Key: transcriptionJobs.jobKey(companyId, jobId),
          ConsistentRead: true,
        }),
      );
      expect(item.Item?.leaseUntil).toBeUndefined();
      expect(item.Item?.workpk).toBeUndefined();
      const queue = await db2.send(
        new GetCommand({
          TableName: tableName,
          Key: transcriptionJobs.queueKey(companyId),
          ConsistentRead: true,
        }),
      );
      expect(queue.Item?.unfinished).toBe(0);
    } finally {
      await second.stop('SIGTERM');
    }
  }, 180_000);
});
