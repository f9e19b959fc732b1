import { describe, expect, it } from 'vitest';
import { createJobLifecycle } from '../../functions/shared/data/jobs/lifecycle';
import { transcriptionReuseKey, transcriptionStore } from '../../functions/shared/data/transcription-jobs';

const transcriptionJobs = createJobLifecycle(transcriptionStore);

describe('transcription keys (permanent: items exist under them)', () => {
  it('keeps job, queue and reuse items in the company transcription partition', () => {
    expect(transcriptionJobs.jobKey('co_1', 'tr_1')).toEqual({ pk: 'CO#co_1#TRANSCRIPTION', sk: 'JOB#tr_1' });
    expect(transcriptionJobs.queueKey('co_1')).toEqual({ pk: 'CO#co_1#TRANSCRIPTION', sk: 'QUEUE' });
    const key = transcriptionReuseKey({ language: 'en-US', size: 42, etag: '"abc-2"' });
    expect(transcriptionJobs.reuseKey('co_1', key)).toEqual({
      pk: 'CO#co_1#TRANSCRIPTION',
      sk: 'REUSE#en-US#42#abc-2',
    });
  });

  it('indexes unfinished transcriptions of every company in one sparse partition', () => {
    expect(transcriptionJobs.unfinishedIndexKey('co_1', 'tr_1')).toEqual({
      workpk: 'TRANSCRIPTION#UNFINISHED',
      worksk: 'co_1#tr_1',
    });
  });
});
