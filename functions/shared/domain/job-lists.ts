import { listTranscodeJobs } from '../data/transcode-jobs';
import { listTranscriptionJobs } from '../data/transcription-jobs';
import { ValidationError } from '../errors';
import { DEFAULT_JOB_PAGE, type PageRequest } from './pages';
import { toPublicJob } from './transcodes';
import { toPublicTranscription } from './transcriptions';

/**
 * `GET /v1/transcodes` and `GET /v1/transcriptions`: a company's jobs of one type, newest first, by the one
 * paging rule (`limit` and `cursor` in, `jobs` and `nextCursor` out). The cursor is the id of the last job
 * shown; anything that cannot be a job id of the type is refused at its pointer.
 */

const checkedCursor = (cursor: string | undefined, prefix: 'tc_' | 'tr_'): string | undefined => {
  if (cursor === undefined || new RegExp(`^${prefix}[0-9a-z]{1,64}$`).test(cursor)) return cursor;
  throw new ValidationError([
    { pointer: '/query/cursor', message: 'is not a cursor of this list; start again without a cursor' },
  ]);
};

export const listTranscodes = async (companyId: string, request: PageRequest) => {
  const { jobs, nextCursor } = await listTranscodeJobs(companyId, {
    limit: request.limit ?? DEFAULT_JOB_PAGE,
    cursor: checkedCursor(request.cursor, 'tc_'),
  });
  return { jobs: jobs.map(toPublicJob), nextCursor };
};

export const listTranscriptions = async (companyId: string, request: PageRequest) => {
  const { jobs, nextCursor } = await listTranscriptionJobs(companyId, {
    limit: request.limit ?? DEFAULT_JOB_PAGE,
    cursor: checkedCursor(request.cursor, 'tr_'),
  });
  return { jobs: jobs.map(toPublicTranscription), nextCursor };
};
