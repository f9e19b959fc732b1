import { type TranscodeJobRecord, transcodeJobs } from './transcode-jobs';

/**
 * Unfinished jobs of every company, from the sparse index partition the job module maintains (operator
 * sweeps and the local stack's start-up only; never a request path).
 */
export const listUnfinishedTranscodeJobs = (): Promise<TranscodeJobRecord[]> =>
  transcodeJobs.listUnfinished();
