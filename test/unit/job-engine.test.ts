import { isDeepStrictEqual } from 'node:util';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ddb } from '../../functions/shared/data/client';
import { JobTransitionRefusedError, queueSlotCondition } from '../../functions/shared/data/jobs/lifecycle';
import { storedObjectKey } from '../../functions/shared/data/stored-objects';
import { interruptedError, jobErrorFor } from '../../functions/shared/domain/jobs/job-type';
import { recoverUnfinishedJobs } from '../../functions/shared/domain/jobs/recovery';
import { createJobWorker, jobStep } from '../../functions/shared/domain/jobs/worker-shell';
import { transcodeJobs } from '../../functions/shared/domain/transcodes';
import { transcriptionJobs } from '../../functions/shared/domain/transcriptions';
import { transcodeJobRecord } from '../fixtures/transcode-jobs';

/**
 * The job engine's own rules, through the two types configured on it: the state table (what each move is
 * conditional on and what it writes), the worker shell (dispatch, repeat safety, gone), error mapping and
 * recovery. The races themselves run against DynamoDB Local (`test/integration/job-engine.test.ts`).
 */
const now = new Date('2026-05-06T07:08:09Z');
const job = transcodeJobRecord({ status: 'transcoding' }, now);
const ref = { companyId: job.companyId, jobId: job.jobId, attempt: job.attempt };

type Sent = { input: Record<string, unknown> };
/** Captures what the engine sends, answering every command with `answer`. */
const capture = (answer: unknown = {}) => {
  const sent: Sent[] = [];
  vi.spyOn(ddb, 'send').mockImplementation((async (command: Sent) => {
    sent.push(command);
    return answer;
  }) as never);
  return sent;
};
/** The conditional job update of a command: alone (UpdateItem) or first in a transaction. */
const jobUpdateOf = (command: Sent | undefined) => {
  const input = command?.input as {
    TransactItems?: { Update?: Record<string, unknown> }[];
    ConditionExpression?: string;
  };
  return (input.TransactItems?.[0]?.Update ?? input) as {
    ConditionExpression: string;
    ExpressionAttributeValues: Record<string, unknown>;
    UpdateExpression: string;
  };
};
/** The items of a transaction command (none for another command). */
const itemsOf = (command: Sent | undefined) =>
  (command?.input.TransactItems ?? []) as {
    Update?: {
      Key: object;
      ConditionExpression?: string;
      ExpressionAttributeNames?: Record<string, string>;
      ExpressionAttributeValues: Record<string, unknown>;
    };
  }[];
/** The value an update writes to `field` (`SET #field = :v` or `ADD #field :v`). */
const writtenOf = (
  update: { UpdateExpression?: string; ExpressionAttributeValues?: Record<string, unknown> } | undefined,
  field: string,
) => {
  const placeholder = update?.UpdateExpression?.match(new RegExp(`#${field}(?: =)? (:[a-z0-9]+)`))?.[1];
  return placeholder === undefined ? undefined : update?.ExpressionAttributeValues?.[placeholder];
};
const fromOf = (update: ReturnType<typeof jobUpdateOf>) =>
  Object.entries(update.ExpressionAttributeValues)
    .filter(([name]) => name.startsWith(':from'))
    .map(([, value]) => value);

afterEach(() => vi.restoreAllMocks());

describe('the state table', () => {
  it('conditions every move on its from states and the observed attempt', async () => {
    const { moves } = transcodeJobs;
    const sent = capture({ Attributes: job, Item: job });
    await moves.advance({ job: ref, from: ['transcoding'], to: 'finalizing', now });
    await moves.complete({ job: ref, from: ['finalizing'], billedUnits: 3, now });
    await moves.fail({ job: ref, error: { code: 'internal', message: 'x' }, now });
    await moves.cancel(job, now);
    await moves.retry({ ...job, status: 'failed' }, 5, now);
    const updates = sent.filter((c) => c.input.TransactItems || c.input.UpdateExpression).map(jobUpdateOf);
    expect(updates.map(fromOf)).toEqual([
      ['transcoding'],
      ['finalizing'],
      ['pending', 'probing', 'transcoding', 'finalizing'],
      ['transcoding'],
      ['failed', 'canceled'],
    ]);
    for (const update of updates) {
      expect(update.ConditionExpression).toContain('#attempt = :observedAttempt');
      expect(update.ExpressionAttributeValues[':observedAttempt']).toBe(1);
    }
    // A retry also needs no lease in the future.
    expect(updates[4]?.ConditionExpression).toContain('leaseUntil <= :now');
  });

  it('clears the lease and releases the queue slot on every move into a final state, in one transaction', async () => {
    const { moves } = transcodeJobs;
    const sent = capture({ Item: job });
    await moves.fail({ job: ref, error: { code: 'internal', message: 'x' }, now });
    await moves.cancel(job, now);
    await moves.completeReused({ job: ref, from: ['probing'], set: {}, now });
    const transactions = sent.filter((c) => c.input.TransactItems) as {
      input: {
        TransactItems: {
          Update?: { UpdateExpression: string; ExpressionAttributeValues: Record<string, unknown> };
        }[];
      };
    }[];
    expect(transactions).toHaveLength(3);
    for (const { input } of transactions) {
      expect(input.TransactItems[0]?.Update?.UpdateExpression).toMatch(/REMOVE .*#leaseUntil/);
      expect(writtenOf(input.TransactItems[1]?.Update, 'unfinished')).toBe(-1);
    }
  });

  it('bills the units on the move to done (settled from the stream), puts the reuse entry after it commits, and nothing for a reused result', async () => {
    const { moves } = transcriptionJobs;
    // Both document clients: `ddb`, and the one a one-action transaction goes through as its plain write.
    const sent: Sent[] = [];
    let failReuse = false;
    vi.spyOn(DynamoDBDocumentClient.prototype, 'send').mockImplementation((async (command: Sent) => {
      sent.push(command);
      if (failReuse && JSON.stringify(command.input).includes('REUSE#')) throw new Error('throttled');
      return { Item: { ...job, language: 'en-US', status: 'transcribing' } };
    }) as never);
    const entry = { result: {}, sourceJobId: 'tr_0', durationSeconds: 3, createdAt: now.toISOString() };
    const complete = () =>
      moves.complete({
        job: ref,
        from: ['transcribing'],
        billedUnits: 7,
        reuse: { key: 'en-US#1#e', entry: entry as never },
        now,
      });
    await complete();
    const move = sent.findIndex((c) => c.input.TransactItems);
    const moveItems = JSON.stringify(sent[move]?.input);
    // The job records its units and its settle mark; the usage month is the dispatcher's to add (0065).
    expect(moveItems).toContain('"#billedSeconds":"billedSeconds"');
    expect(moveItems).toContain('"#_streamed":"_streamed"');
    expect(moveItems).not.toContain('#USAGE');
    expect(moveItems).not.toContain('REUSE#');
    // The reuse entry: one plain put (a one-action transaction, decision 0052), after the move.
    const puts = sent.filter((c) => c instanceof PutCommand);
    expect(puts).toHaveLength(1);
    expect(sent.indexOf(puts[0] as Sent)).toBeGreaterThan(move);
    expect(puts[0]?.input.Item).toMatchObject({ sk: 'REUSE#en-US#1#e', sourceJobId: 'tr_0' });
    // A put that fails loses the reuse only: the job is done, the step goes on.
    failReuse = true;
    await expect(complete()).resolves.toBeDefined();
    sent.length = 0;
    await moves.completeReused({ job: ref, from: ['transcribing'], set: {}, now });
    expect(JSON.stringify(sent.map((c) => c.input))).not.toContain('transcription_seconds');
    expect(JSON.stringify(sent.map((c) => c.input))).not.toContain('REUSE#');
  });

  it('puts no reuse entry when the move to done is refused', async () => {
    const sent: Sent[] = [];
    vi.spyOn(DynamoDBDocumentClient.prototype, 'send').mockImplementation((async (command: Sent) => {
      sent.push(command);
      if (command.input.TransactItems)
        throw Object.assign(new Error('cancelled'), {
          name: 'TransactionCanceledException',
          CancellationReasons: [{ Code: 'ConditionalCheckFailed' }],
        });
      return { Item: { ...job, language: 'en-US', status: 'transcribing' } };
    }) as never);
    await expect(
      transcriptionJobs.moves.complete({
        job: ref,
        from: ['transcribing'],
        billedUnits: 7,
        reuse: { key: 'en-US#1#e', entry: { sourceJobId: 'tr_0' } as never },
        now,
      }),
    ).rejects.toBeInstanceOf(JobTransitionRefusedError);
    expect(JSON.stringify(sent.map((c) => c.input))).not.toContain('REUSE#');
  });

  it('records the output files in the transaction of the move to done, their bytes and usage on its settle mark', async () => {
    const sent = capture({ Item: job });
    const file = (name: string, size: number) => ({
      bucket: 'b',
      fullPath: `companies/${ref.companyId}/transcodes/${ref.jobId}/a1/${name}`,
      contentType: 'audio/wav',
      size,
      etag: 'e',
      createdAt: now.toISOString(),
    });
    const files = [file('a.wav', 5), file('b.wav', 7)];
    await transcodeJobs.moves.complete({ job: ref, from: ['transcoding'], billedUnits: 1, files, now });
    const items = itemsOf(sent.at(-1));
    expect(sent.filter((c) => c.input.TransactItems)).toHaveLength(1);
    expect(jobUpdateOf(sent.at(-1)).ConditionExpression).toContain('#status IN');
    const keys = files.map((f) => storedObjectKey(ref.companyId, f.fullPath));
    const records = items.filter((i) => keys.some((k) => isDeepStrictEqual(i.Update?.Key, k)));
    expect(records.map((i) => writtenOf(i.Update as never, 'size'))).toEqual([5, 7]);
    // The storage figure and the usage month are the dispatcher's to add, from the move's settle mark (0065).
    expect(items.filter((i) => i.Update?.ExpressionAttributeNames?.['#storageBytes'])).toEqual([]);
    expect(
      items.filter((i) => String((i.Update?.Key as { pk?: string } | undefined)?.pk).includes('USAGE')),
    ).toEqual([]);
    // The units are the job's `billedSeconds`; the mark holds the compute time (none here) and the bytes.
    expect(writtenOf(jobUpdateOf(sent.at(-1)) as never, '_settle')).toEqual({ b: 12 });
    expect(writtenOf(jobUpdateOf(sent.at(-1)) as never, 'billedSeconds')).toBe(1);
    expect(writtenOf(jobUpdateOf(sent.at(-1)) as never, '_streamed')).toBe(true);
    // A move without figures removes a mark an earlier attempt left (kept by a retry of the code before it).
    await transcodeJobs.moves.fail({ job: ref, error: { code: 'x', message: 'x' }, now });
    const failed = jobUpdateOf(sent.at(-1));
    expect(failed.UpdateExpression).toMatch(/REMOVE .*#_settle/);
    expect(writtenOf(failed as never, '_streamed')).toBe(true);
  });

  it('bounds the queue: a cap of 0 refuses a job even when the queue was never written', async () => {
    const sent = capture();
    const slotCondition = async (cap: number) => {
      await transcodeJobs.lifecycle.createJob(job, cap);
      const slot = itemsOf(sent.at(-1))[1]?.Update;
      return { condition: slot?.ConditionExpression, values: slot?.ExpressionAttributeValues };
    };
    // A missing counter passes only the `attribute_not_exists` branch: it must not be there at cap 0.
    expect(await slotCondition(0)).toEqual({
      condition: 'unfinished < :cap',
      values: expect.objectContaining({ ':cap': 0 }),
    });
    expect(queueSlotCondition(-1)).toBe('unfinished < :cap');
    expect(await slotCondition(1)).toEqual({
      condition: 'attribute_not_exists(unfinished) OR unfinished < :cap',
      values: expect.objectContaining({ ':cap': 1 }),
    });
  });

  it('does not count a move within one state (a renewed lease) as a transition', async () => {
    const sent = capture({ Attributes: { ...job, status: 'transcribing', language: 'en-US' } });
    await transcriptionJobs.moves.advance({ job: ref, from: ['transcribing'], to: 'transcribing', now });
    expect(jobUpdateOf(sent[0]).UpdateExpression).not.toContain('#status');
  });
});

describe('the worker shell', () => {
  it('continues a repeated step whose attempt is already in or past the target, and ends a gone job', async () => {
    const advance = vi
      .spyOn(transcodeJobs.moves, 'advance')
      .mockRejectedValue(new JobTransitionRefusedError('transcode', job.jobId, 'probing'));
    const getJob = vi.spyOn(transcodeJobs.lifecycle, 'getJob').mockResolvedValue(job);
    const step = jobStep(transcodeJobs, ref, now);
    await expect(step.advance({ from: ['pending'], to: 'probing' })).resolves.toBe(job);
    getJob.mockResolvedValue({ ...job, status: 'canceled' });
    await expect(step.advance({ from: ['pending'], to: 'probing' })).rejects.toMatchObject({
      name: 'TranscodeJobGone',
    });
    getJob.mockResolvedValue({ ...job, attempt: 2 });
    await expect(step.advance({ from: ['pending'], to: 'probing' })).rejects.toMatchObject({
      name: 'TranscodeJobGone',
    });
    expect(advance).toHaveBeenCalledTimes(3);
  });

  it('dispatches by action, gives fail to the shell and refuses an unknown action', async () => {
    const probe = vi.fn(async (input: { action: 'probe' }) => ({ probed: input.action }));
    const fail = vi.spyOn(transcodeJobs.moves, 'fail').mockResolvedValue({ set: {} });
    const worker = createJobWorker(transcodeJobs, { probe }, { now: () => now });
    await expect(worker({ action: 'probe' })).resolves.toEqual({ probed: 'probe' });
    await expect(worker({ action: 'fail', ...ref, error: { Error: 'States.Timeout' } })).resolves.toEqual({
      ...ref,
      recorded: true,
    });
    expect(fail).toHaveBeenCalledWith({
      job: ref,
      error: { code: 'timeout', message: 'The conversion took too long.' },
      now,
    });
    await expect(worker({ action: 'nope' } as never)).rejects.toThrow('Unknown transcode worker action nope');
  });

  it("maps error names through the type's table, the common table and its engine prefix, else internal", () => {
    expect(jobErrorFor(transcriptionJobs, 'SourceNoAudio').code).toBe('source_no_audio');
    expect(jobErrorFor(transcodeJobs, 'SourceNoAudio').code).toBe('internal');
    expect(jobErrorFor(transcodeJobs, 'SourceMissing').code).toBe('source_missing');
    expect(jobErrorFor(transcriptionJobs, 'Transcribe.LimitExceeded').code).toBe('transcription_failed');
    expect(jobErrorFor(transcodeJobs, 'Transcribe.LimitExceeded').code).toBe('internal');
    expect(jobErrorFor(transcodeJobs, '__proto__').code).toBe('internal');
  });
});

describe('recovery', () => {
  it('fails every unfinished job as interrupted and counts the ones that moved on meanwhile', async () => {
    const jobs = ['tr_1', 'tr_2', 'tr_3'].map((jobId) => ({ ...job, jobId }));
    vi.spyOn(transcriptionJobs.lifecycle, 'listUnfinished').mockResolvedValue(jobs as never);
    const fail = vi.spyOn(transcriptionJobs.moves, 'fail').mockImplementation(async ({ job: { jobId } }) => {
      if (jobId === 'tr_2') throw new JobTransitionRefusedError('transcription', jobId, 'failed');
      return { set: {} };
    });
    await expect(recoverUnfinishedJobs(transcriptionJobs, now)).resolves.toEqual({ failed: 2, moved: 1 });
    expect(fail).toHaveBeenCalledWith(
      expect.objectContaining({ error: interruptedError(transcriptionJobs), now }),
    );
  });
});
