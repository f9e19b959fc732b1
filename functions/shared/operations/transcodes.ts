import { jobCancelHandler, jobListHandler, jobReadHandler, jobRetryHandler } from '../domain/jobs/commands';
import { toPublicJob } from '../domain/jobs/public-views';
import { enqueueTranscode, transcodeJobs } from '../domain/transcodes';
import type { RouteHandler } from '../http/router';

/** What each operation of media transforms does: the group's routes, its MCP tools and its workflow actions. */

export const createTranscode: RouteHandler<'createTranscode'> = async ({ auth, body, now }) => ({
  body: { job: toPublicJob(await enqueueTranscode(auth.companyId, body, now)) },
});
export const listTranscodes: RouteHandler<'listTranscodes'> = /* @__PURE__ */ jobListHandler(transcodeJobs);
export const getTranscode: RouteHandler<'getTranscode'> = /* @__PURE__ */ jobReadHandler(transcodeJobs);
export const cancelTranscode: RouteHandler<'cancelTranscode'> =
  /* @__PURE__ */ jobCancelHandler(transcodeJobs);
export const retryTranscode: RouteHandler<'retryTranscode'> = /* @__PURE__ */ jobRetryHandler(transcodeJobs);
