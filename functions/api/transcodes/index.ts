import { jobRouteHandlers } from '../../shared/domain/jobs/commands';
import { enqueueTranscode, toPublicJob, transcodeJobs } from '../../shared/domain/transcodes';
import { createApiHandler } from '../../shared/http/middleware';
import { TRANSCODE_ROUTES } from '../../shared/routes/transcode-routes';

const jobs = jobRouteHandlers(transcodeJobs);

export const handler = createApiHandler('transcodes', TRANSCODE_ROUTES, {
  createTranscode: async ({ auth, body }) => ({
    body: { job: toPublicJob(await enqueueTranscode(auth.companyId, body, new Date())) },
  }),
  listTranscodes: jobs.list,
  getTranscode: jobs.get,
  cancelTranscode: jobs.cancel,
  retryTranscode: jobs.retry,
});
