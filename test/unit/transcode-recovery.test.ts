import { afterEach, describe, expect, it, vi } from 'vitest';
import { recoverUnfinishedWork, UNFINISHED_WORK } from '../../functions/local/recovery';
import {
  failTranscodeJob,
  type TranscodeJobRecord,
  TranscodeTransitionRefusedError,
} from '../../functions/shared/data/transcode-jobs';
import { listUnfinishedTranscodeJobs } from '../../functions/shared/data/unfinished-transcode-jobs';

vi.mock('../../functions/shared/data/unfinished-transcode-jobs', () => ({
  listUnfinishedTranscodeJobs: vi.fn(),
}));
vi.mock('../../functions/shared/data/transcode-jobs', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  failTranscodeJob: vi.fn(),
}));

const now = new Date('2026-03-04T05:06:07Z');
const job = (jobId: string) =>
  ({ companyId: 'co_1', jobId, attempt: 1, status: 'transcoding' }) as TranscodeJobRecord;

afterEach(() => vi.resetAllMocks());

describe('local start-up recovery of interrupted transcodes', () => {
  it('marks every unfinished job failed with code interrupted, skipping jobs that moved on meanwhile', async () => {
    vi.mocked(listUnfinishedTranscodeJobs).mockResolvedValue([job('tc_1'), job('tc_2'), job('tc_3')]);
    vi.mocked(failTranscodeJob).mockImplementation(async ({ job: { jobId } }) => {
      if (jobId === 'tc_2') throw new TranscodeTransitionRefusedError(jobId, 'failed');
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
