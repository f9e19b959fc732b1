import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JobTransitionRefusedError } from '../../functions/shared/data/jobs/lifecycle';
import { interruptedError, jobErrorFor } from '../../functions/shared/domain/jobs/job-type';
import { failStep } from '../../functions/shared/domain/jobs/worker-shell';
import { transcodeJobs } from '../../functions/shared/domain/transcodes';

const failTranscodeJob = vi.spyOn(transcodeJobs.moves, 'fail');
const errorFor = (name: string | undefined) => jobErrorFor(transcodeJobs, name);

const now = new Date('2026-03-04T05:06:07Z');
const ref = { companyId: 'co_1', jobId: 'tc_1', attempt: 3 };
const run = (error?: { Error?: string; Cause?: string }) =>
  failStep(transcodeJobs, { action: 'fail', ...ref, ...(error ? { error } : {}) }, { now: () => now });

beforeEach(() => {
  failTranscodeJob.mockResolvedValue({ set: {} });
});
afterEach(() => vi.resetAllMocks());

describe('the engine fail step, for transcodes', () => {
  it.each([
    ['SourceMissing', 'source_missing'],
    ['SourceUnreadable', 'source_unreadable'],
    ['SourceTooLarge', 'source_too_large'],
    ['SourceTooLong', 'source_too_long'],
    ['TranscodeEngineFailed', 'transcode_failed'],
    ['OutputMissing', 'transcode_failed'],
    ['States.TaskFailed', 'transcode_failed'],
    ['MediaConvert.BadRequestException', 'transcode_failed'],
    ['States.Timeout', 'timeout'],
    ['States.HeartbeatTimeout', 'timeout'],
    ['Lambda.ServiceException', 'internal'],
    ['States.Runtime', 'internal'],
    ['TypeError', 'internal'],
    ['constructor', 'internal'],
    ['toString', 'internal'],
  ])('records the Step Functions error %s as code %s on the job', async (name, code) => {
    await expect(run({ Error: name, Cause: 'details' })).resolves.toEqual({ ...ref, recorded: true });
    expect(failTranscodeJob).toHaveBeenCalledWith({
      job: ref,
      error: { code, message: expect.any(String) },
      now,
    });
  });

  it('records internal when the state machine passed no error', async () => {
    await run();
    expect(vi.mocked(failTranscodeJob).mock.calls[0]?.[0].error).toEqual(errorFor(undefined));
    expect(errorFor(undefined).code).toBe('internal');
  });

  it('never shows the tenant the cause', async () => {
    await run({ Error: 'States.TaskFailed', Cause: 'arn:aws:secret internals' });
    expect(vi.mocked(failTranscodeJob).mock.calls[0]?.[0].error.message).not.toContain('internals');
  });

  it('keeps the state of a job canceled or retried meanwhile and reports it as not recorded', async () => {
    vi.mocked(failTranscodeJob).mockRejectedValue(
      new JobTransitionRefusedError('transcode', 'tc_1', 'failed'),
    );
    await expect(run({ Error: 'SourceMissing' })).resolves.toEqual({ ...ref, recorded: false });
  });

  it('passes any other write failure on, so the state machine retries the step', async () => {
    vi.mocked(failTranscodeJob).mockRejectedValue(new Error('ProvisionedThroughputExceededException'));
    await expect(run({ Error: 'SourceMissing' })).rejects.toThrow('ProvisionedThroughputExceededException');
  });

  it('has a distinct message for the interrupted code that start-up recovery writes', () => {
    expect(interruptedError(transcodeJobs)).toEqual({
      code: 'interrupted',
      message: expect.stringContaining('retry'),
    });
  });
});
