import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { startStackProcess } from './local-stack-process';
import './support';
import { eventually, startReceiver, verifySignature } from './webhook-receiver';

/**
 * The outbox survives a crash: a job is canceled (the event is written in the cancel's transaction), the
 * stack is killed before the event reached the endpoint, and the restarted stack delivers it.
 */
describe('local stack killed between a state change and its delivery', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'api-v1-events-restart-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('delivers the event after the restart', async () => {
    const { transcodeJobs } = await import('../../functions/shared/domain/transcodes');
    const { jobKey: transcodeJobKey, unfinishedIndexKey } = transcodeJobs.lifecycle;
    const receiver = await startReceiver();
    const first = await startStackProcess(dataDir);
    let second: Awaited<ReturnType<typeof startStackProcess>> | undefined;
    try {
      const { dynamodbEndpoint, tableName, region, apiUrl } = first.description;
      const db = DynamoDBDocumentClient.from(
        new DynamoDBClient({
          endpoint: dynamodbEndpoint,
          region,
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }),
      );
      const headers = { 'x-api-key': first.demoApiKey, 'content-type': 'application/json' };
      const self = (await fetch(`${apiUrl}/v1/self`, { headers }).then((r) => r.json())) as {
        company: { id: string };
      };
      const companyId = self.company.id;
      // The endpoint is unreachable until the crash: nothing can be delivered before it.
      receiver.answer('/crash', Array(1000).fill(503));
      const endpoint = (await fetch(`${apiUrl}/v1/webhooks`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: `${receiver.base}/crash`, events: ['transcode.canceled'] }),
      }).then((r) => r.json())) as { secret: string };
      const now = new Date().toISOString();
      const jobId = 'tc_crash1';
      await db.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...transcodeJobKey(companyId, jobId),
            ...unfinishedIndexKey(companyId, jobId),
            entity: 'transcode_job',
            jobId,
            companyId,
            status: 'pending',
            preset: 'wav',
            source: {
              bucket: first.description.bucketName,
              fullPath: `companies/${companyId}/a.wav`,
              size: 1,
              etag: 'x',
            },
            progress: { phase: 'pending' },
            attempt: 1,
            reused: false,
            billedSeconds: 0,
            createdAt: now,
            updatedAt: now,
            attemptStartedAt: now,
          },
        }),
      );
      const canceled = await fetch(`${apiUrl}/v1/transcodes/${jobId}/cancel`, { method: 'POST', headers });
      expect(canceled.status).toBe(200);
      const job = ((await canceled.json()) as { job: Record<string, unknown> }).job;
      expect(await first.stop('SIGKILL')).toBeNull();
      expect(
        receiver.of('/crash').filter((r) => r.json.type === 'transcode.canceled').length,
      ).toBeLessThanOrEqual(1);

      receiver.answer('/crash', []);
      const restartedAt = Date.now();
      second = await startStackProcess(dataDir);
      const delivered = await eventually(
        () =>
          receiver.of('/crash').filter((r) => r.at >= restartedAt && r.json.type === 'transcode.canceled'),
        (r) => r.length > 0,
        40_000,
      );
      expect(delivered).toHaveLength(1);
      expect(delivered[0]?.json.data).toEqual(job);
      expect(verifySignature(endpoint.secret, delivered[0] as never)).toBe(true);
    } finally {
      await second?.stop('SIGTERM');
      if (first.child.exitCode === null) await first.stop('SIGKILL');
      await receiver.close();
    }
  }, 150_000);
});
