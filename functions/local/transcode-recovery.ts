import { failTranscodeJob, TranscodeTransitionRefusedError } from '../shared/data/transcode-jobs';
import { listUnfinishedTranscodeJobs } from '../shared/data/unfinished-transcode-jobs';
import { ERROR_CODES } from '../workers/transcode/errors';

/**
 * At local stack start-up no execution survives from the previous run, so every job still unfinished was
 * interrupted: it is marked `failed` with code `interrupted` (lease cleared, queue slot released) and can be
 * retried. Returns how many jobs were marked.
 */
export const markInterruptedTranscodes = async (now: Date): Promise<number> => {
  let marked = 0;
  const error = ERROR_CODES.Interrupted;
  for (const job of await listUnfinishedTranscodeJobs()) {
    try {
      await failTranscodeJob({ job, error, now });
      marked += 1;
    } catch (e) {
      if (!(e instanceof TranscodeTransitionRefusedError)) throw e;
    }
  }
  return marked;
};
