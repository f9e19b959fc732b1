import { JobTransitionRefusedError } from '../shared/data/job-lifecycle';
import { failTranscriptionJob, transcriptionJobs } from '../shared/data/transcription-jobs';
import { ERROR_CODES } from '../workers/transcription/errors';

/**
 * At local stack start-up no execution survives from the previous run, so every transcription still
 * unfinished was interrupted: it is marked `failed` with code `interrupted` (lease cleared, queue slot
 * released). Returns how many jobs were marked.
 */
export const markInterruptedTranscriptions = async (now: Date): Promise<number> => {
  let marked = 0;
  for (const job of await transcriptionJobs.listUnfinished()) {
    try {
      await failTranscriptionJob({ job, error: ERROR_CODES.Interrupted, now });
      marked += 1;
    } catch (e) {
      if (!(e instanceof JobTransitionRefusedError)) throw e;
    }
  }
  return marked;
};
