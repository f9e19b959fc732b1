import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JobTransitionRefusedError } from '../../functions/shared/data/jobs/lifecycle';
import { transcodeJobs } from '../../functions/shared/domain/transcodes';
import { progressStep } from '../../functions/workers/transcode/progress';
import { transcodeJobRecord } from '../fixtures/transcode-jobs';

const recordTranscodeProgress = vi.spyOn(transcodeJobs.moves, 'progress');

const now = new Date('2026-03-04T05:06:07Z');
const meta = { stateMachine: 'transcode', companyId: 'co_1', jobId: 'tc_1', attempt: '2', preset: 'wav' };
const run = (detail: Record<string, unknown>) =>
  progressStep({ action: 'progress', detail } as never, { now: () => now });
const update = (percent: unknown, userMetadata: Record<string, string> = meta) => ({
  status: 'STATUS_UPDATE',
  userMetadata,
  jobProgress: { jobPercentComplete: percent },
});

beforeEach(() => {
  recordTranscodeProgress.mockResolvedValue(transcodeJobRecord({}, now));
});
afterEach(() => vi.resetAllMocks());

describe('transcode progress step', () => {
  it.each([
    [42, 42],
    [42.9, 42],
    [100, 99],
    [-5, 0],
  ])('records %s percent as %s on the job of the event', async (percent, recorded) => {
    await expect(run(update(percent))).resolves.toEqual({ recorded: true, percent: recorded });
    expect(recordTranscodeProgress).toHaveBeenCalledWith({
      job: { companyId: 'co_1', jobId: 'tc_1', attempt: 2 },
      phase: 'transcoding',
      percent: recorded,
      now,
    });
  });

  it.each([
    ['another status', { ...update(50), status: 'COMPLETE' }],
    ['no percent', update(undefined)],
    ['no job id', update(50, { ...meta, jobId: '' })],
    ['no company', update(50, { stateMachine: 'transcode', jobId: 'tc_1', attempt: '2' })],
    ['a non-integer attempt', update(50, { ...meta, attempt: 'x' })],
  ])('ignores an event with %s', async (_name, detail) => {
    await expect(run(detail)).resolves.toEqual({ recorded: false });
    expect(recordTranscodeProgress).not.toHaveBeenCalled();
  });

  it('ignores a late event for a job that left transcoding', async () => {
    recordTranscodeProgress.mockRejectedValue(
      new JobTransitionRefusedError('transcode', 'tc_1', 'transcoding'),
    );
    await expect(run(update(50))).resolves.toEqual({ recorded: false });
  });
});
