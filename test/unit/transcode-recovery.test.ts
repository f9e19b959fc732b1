import { afterEach, describe, expect, it, vi } from 'vitest';
import { recoverUnfinishedWork, UNFINISHED_WORK } from '../../functions/local/recovery';
import { JobTransitionRefusedError } from '../../functions/shared/data/jobs/lifecycle';
import type { TranscodeJobRecord } from '../../functions/shared/data/transcode-jobs';
import { transcodeJobs } from '../../functions/shared/domain/transcodes';

const now = new Date('2026-03-04T05:06:07Z');
const job = (jobId: string) =>
  ({ companyId: 'co_1', jobId, attempt: 1, status: 'transcoding' }) as TranscodeJobRecord;

afterEach(() => vi.restoreAllMocks());

describe('local start-up recovery of interrupted transcodes', () => {
  it('marks every unfinished job failed with code interrupted, skipping jobs that moved on meanwhile', async () => {
    vi.spyOn(transcodeJobs.lifecycle, 'listUnfinished').mockResolvedValue([
      job('tc_1'),
      job('tc_2'),
      job('tc_3'),
    ]);
    const failTranscodeJob = vi
      .spyOn(transcodeJobs.moves, 'fail')
      .mockImplementation(async ({ job: { jobId } }) => {
        if (jobId === 'tc_2') throw new JobTransitionRefusedError('transcode', jobId, 'failed');
        return { set: {} };
      });
    const transcodes = UNFINISHED_WORK.filter((k) => k.name === 'transcodes');
    await expect(recoverUnfinishedWork(now, transcodes)).resolves.toEqual({
      transcodes: { failed: 2, moved: 1, resumed: 0 },
    });
    expect(failTranscodeJob).toHaveBeenCalledTimes(3);
    expect(failTranscodeJob).toHaveBeenCalledWith({
      job: job('tc_1'),
      error: { code: 'interrupted', message: 'The conversion was interrupted; retry the job.' },
      now,
    });
  });
});
