import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readSettleMark, settleMark } from '../../functions/shared/data/jobs/settle';
import { SPEECH_JOB_STORE } from '../../functions/shared/data/speech-jobs';
import { transcodeStore } from '../../functions/shared/data/transcode-jobs';
import { transcriptionStore } from '../../functions/shared/data/transcription-jobs';
import { createJobSettleWriter, jobSettleOf } from '../../functions/shared/domain/jobs/settle-stream';

/** A job's final move settled from the stream (decision 0065): which records, which event, which sums. */
const job = (jobId: string, extra: Record<string, unknown> = {}) => ({
  pk: 'CO#co_1#TRANSCODE',
  sk: `JOB#${jobId}`,
  entity: 'transcode_job',
  companyId: 'co_1',
  jobId,
  status: 'done',
  attempt: 1,
  preset: 'wav',
  source: { bucket: 'b', fullPath: 'companies/co_1/in.wav', size: 10, etag: 'e' },
  output: {
    bucket: 'b',
    fullPath: `companies/co_1/transcodes/${jobId}/a1/output.wav`,
    contentType: 'audio/wav',
    size: 40,
  },
  billedSeconds: 3,
  reused: false,
  progress: { phase: 'done', percent: 100 },
  createdAt: '2026-11-29T10:00:00.000Z',
  updatedAt: '2026-11-29T10:00:05.000Z',
  finishedAt: '2026-11-29T10:00:05.000Z',
  attemptStartedAt: '2026-11-29T10:00:00.000Z',
  _streamed: true,
  _settle: { m: 900, b: 40 },
  ...extra,
});
const finalizing = (jobId: string) => ({ ...job(jobId), status: 'finalizing', _settle: undefined });

afterEach(() => vi.restoreAllMocks());

type Sent = {
  TransactItems?: Record<string, { ExpressionAttributeValues?: Record<string, unknown> }>[];
};
/** Settles two done moves of one company through one writer; `answer` answers each request sent. */
const settleTwo = async (answer: (sent: Sent[]) => unknown = () => ({})): Promise<Sent[]> => {
  const sent: Sent[] = [];
  vi.spyOn(DynamoDBDocumentClient.prototype, 'send').mockImplementation((async (command: { input: Sent }) => {
    sent.push(command.input);
    return answer(sent);
  }) as never);
  const write = createJobSettleWriter();
  const settles = ['tc_1', 'tc_2'].map((id) => jobSettleOf({ newImage: job(id), oldImage: finalizing(id) }));
  await Promise.all(settles.map((s) => (s ? write(s) : undefined)));
  return sent;
};

describe('job settles from the stream', () => {
  it('mark a final move in a few bytes (a job item keeps its write unit), read back as written', () => {
    const mark = { computeMs: { workers: 123_456, media: 654_321 }, storageBytes: 123_456_789 };
    const stored = settleMark(mark);
    expect(stored).toEqual({ _settle: { w: 123_456, m: 654_321, b: 123_456_789 }, _streamed: true });
    expect(readSettleMark(stored)).toEqual(mark);
    expect(settleMark()).toEqual({ _streamed: true });
    expect(readSettleMark(settleMark())).toEqual({});
    expect(readSettleMark({ _settle: { m: 1 } })).toBeUndefined();
  });

  it('settle a final move once: its event (an id derived from the move), its usage on its day, its bytes', () => {
    const settle = jobSettleOf({ newImage: job('tc_1'), oldImage: finalizing('tc_1') });
    expect(settle).toMatchObject({
      companyId: 'co_1',
      itemKey: 'CO#co_1#TRANSCODE#JOB#tc_1',
      usage: { date: '2026-11-29', additions: { transcode_seconds: 3, 'compute_ms#media': 900 } },
      storageBytes: 40,
      event: { type: 'transcode.done', resourceId: 'tc_1', now: new Date('2026-11-29T10:00:05.000Z') },
    });
    // The event's data is the job as its GET route shows it: no mark, no keys.
    expect(settle?.event.data).toMatchObject({ id: 'tc_1', status: 'done', billedSeconds: 3 });
    expect(JSON.stringify(settle?.event.data)).not.toMatch(/_settle|_streamed|"pk"/);
    // The same move handed over again, or by a later record of the same settled job: the same id.
    const again = jobSettleOf({ newImage: job('tc_1'), oldImage: finalizing('tc_1') });
    expect(again?.event.id).toBe(settle?.event.id);
    expect(settle?.event.id).toMatch(/^evt_[0-9a-z]{26}$/);
    // A later write of the settled job (same mark, same status) settles nothing again.
    expect(jobSettleOf({ newImage: { ...job('tc_1'), note: 1 }, oldImage: job('tc_1') })).toBeUndefined();
  });

  it('settle nothing of a write without the mark of its own attempt in a final status', () => {
    expect(jobSettleOf({ newImage: job('tc_1', { _streamed: undefined }) })).toBeUndefined();
    expect(jobSettleOf({ newImage: job('tc_1', { status: 'transcoding' }) })).toBeUndefined();
    expect(jobSettleOf({ newImage: { ...job('tc_1'), entity: 'transcode_queue' } })).toBeUndefined();
    // A failed or canceled move settles its event alone; a reused result (created done) too.
    expect(
      jobSettleOf({
        newImage: job('tc_1', { status: 'failed', _settle: undefined }),
        oldImage: finalizing('tc_1'),
      }),
    ).toMatchObject({ storageBytes: 0, event: { type: 'transcode.failed' } });
    expect(
      jobSettleOf({ newImage: job('tc_1', { _settle: undefined, reused: true, billedSeconds: 0 }) }),
    ).not.toHaveProperty('usage');
  });

  it('know an event for the move to done of every settled type (the event makes its sums once-only)', () => {
    for (const store of [transcodeStore, transcriptionStore, SPEECH_JOB_STORE])
      expect([store.entities.job, store.eventTypes.done]).toEqual([
        store.entities.job,
        expect.stringMatching(/\.done$/),
      ]);
    // A move with figures and no event could not be added once: it is refused loudly, never dropped.
    const canceled = { ...job('sj_1'), entity: 'speech_job', status: 'canceled' };
    expect(() => jobSettleOf({ newImage: canceled })).toThrow(/no event/);
    expect(jobSettleOf({ newImage: { ...canceled, _settle: undefined } })).toBeUndefined();
  });

  it('write a batch in one transaction: the events, then each usage family item and company total summed once', async () => {
    const sent = await settleTwo();
    expect(sent).toHaveLength(1);
    const actions = sent[0]?.TransactItems ?? [];
    expect(actions.map((a) => Object.keys(a)[0])).toEqual(['Put', 'Put', 'Update', 'Update']);
    const values = actions.slice(2).map((a) => Object.values(a.Update?.ExpressionAttributeValues ?? {}));
    // transcode seconds 3 + 3 and media time 900 + 900 on the month and on the day; bytes 40 + 40.
    expect(values[0]).toEqual(expect.arrayContaining([6, 1800]));
    expect(values[1]).toEqual(expect.arrayContaining([80]));
  });

  it('send a batch again without the moves whose event exists (handled before), adding only the others', async () => {
    const sent = await settleTwo((sent) => {
      if (sent.length > 1) return {};
      throw Object.assign(new Error('cancelled'), {
        name: 'TransactionCanceledException',
        CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, ...Array(3).fill({ Code: 'None' })],
      });
    });
    expect(sent.map((s) => s.TransactItems?.length)).toEqual([4, 3]);
    expect(JSON.stringify(sent[1])).toContain('"resourceId":"tc_2"');
    expect(JSON.stringify(sent[1])).not.toContain('"resourceId":"tc_1"');
  });
});
