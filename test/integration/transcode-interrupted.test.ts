import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { startStackProcess } from './local-stack-process';
import './support';

describe('local stack restart with unfinished transcode jobs', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'api-v1-transcode-restart-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('marks them failed with code interrupted, clears the lease and lets them be retried', async () => {
    // Key builders are pure; the module is loaded after `./support` has set the runtime environment.
    const { transcodeJobs } = await import('../../functions/shared/domain/transcodes');
    const { jobKey: transcodeJobKey, unfinishedIndexKey } = transcodeJobs.lifecycle;
    const transcodeQueueKey = transcodeJobs.lifecycle.queueKey;
    const first = await startStackProcess(dataDir);
    const { dynamodbEndpoint, tableName, region } = first.description;
    const db = DynamoDBDocumentClient.from(
      new DynamoDBClient({
        endpoint: dynamodbEndpoint,
        region,
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      }),
    );
    const self = await fetch(`${first.description.apiUrl}/v1/self`, {
      headers: { 'x-api-key': first.demoApiKey },
    }).then((r) => r.json() as Promise<{ company: { id: string } }>);
    const companyId = self.company.id;
    const now = new Date().toISOString();
    const jobId = 'tc_interrupted1';
    // A job caught mid-conversion, as a killed stack leaves it: transcoding, a live lease, one queue slot.
    await db.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...transcodeJobKey(companyId, jobId),
          ...unfinishedIndexKey(companyId, jobId),
          entity: 'transcode_job',
          jobId,
          companyId,
          status: 'transcoding',
          preset: 'wav',
          source: {
            bucket: first.description.bucketName,
            fullPath: `companies/${companyId}/gone.wav`,
            size: 1,
            etag: 'x',
          },
          progress: { phase: 'transcoding', percent: 40 },
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
      new PutCommand({ TableName: tableName, Item: { ...transcodeQueueKey(companyId), unfinished: 1 } }),
    );
    // Killed, as a crash leaves it: nothing of the stack runs its shutdown.
    expect(await first.stop('SIGKILL')).toBeNull();

    const second = await startStackProcess(dataDir);
    try {
      const headers = { 'x-api-key': second.demoApiKey };
      const get = await fetch(`${second.description.apiUrl}/v1/transcodes/${jobId}`, { headers });
      expect(get.status).toBe(200);
      const { job } = (await get.json()) as { job: Record<string, unknown> };
      expect(job).toMatchObject({ status: 'failed', leaseUntil: null, error: { code: 'interrupted' } });
      const db2 = DynamoDBDocumentClient.from(
        new DynamoDBClient({
          endpoint: second.description.dynamodbEndpoint,
          region,
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }),
      );
      const queue = await db2.send(
        new GetCommand({ TableName: tableName, Key: transcodeQueueKey(companyId), ConsistentRead: true }),
      );
      expect(queue.Item?.unfinished).toBe(0);
      const retried = await fetch(`${second.description.apiUrl}/v1/transcodes/${jobId}/retry`, {
        method: 'POST',
        headers,
      });
      expect(retried.status).toBe(202);
      expect(((await retried.json()) as { job: { attempt: number } }).job.attempt).toBe(2);
    } finally {
      await second.stop('SIGTERM');
    }
  }, 180_000);
});
