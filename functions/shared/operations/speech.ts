import { jobCancelHandler, jobListHandler, jobReadHandler } from '../domain/jobs/commands';
import { toPublicSpeechJob } from '../domain/jobs/public-views';
import { speechVoices, synthesizeSpeech as synthesize } from '../domain/speech';
import { enqueueSpeechJob } from '../domain/speech-job-requests';
import { SPEECH_JOB_TYPE } from '../domain/speech-jobs';
import { spokenText } from '../domain/spoken-text';
import type { RouteHandler } from '../http/router';

/** What each operation of speech does: the group's routes, its MCP tools and its workflow actions. */

export const synthesizeSpeech: RouteHandler<'synthesizeSpeech'> = async ({ auth, body, now }) => ({
  body: await synthesize(auth.companyId, body, auth.storageBytesLimit, now),
});
export const listSpeechVoices: RouteHandler<'listSpeechVoices'> = async () => ({ body: speechVoices() });
export const rewriteSpokenText: RouteHandler<'rewriteSpokenText'> = async ({ body }) => ({
  body: await spokenText(body.markdown),
});
export const createSpeechJob: RouteHandler<'createSpeechJob'> = async ({ auth, body, now }) => ({
  body: { job: toPublicSpeechJob(await enqueueSpeechJob(auth.companyId, body, now)) },
});
export const listSpeechJobs: RouteHandler<'listSpeechJobs'> = /* @__PURE__ */ jobListHandler(SPEECH_JOB_TYPE);
export const getSpeechJob: RouteHandler<'getSpeechJob'> = /* @__PURE__ */ jobReadHandler(SPEECH_JOB_TYPE);
export const cancelSpeechJob: RouteHandler<'cancelSpeechJob'> =
  /* @__PURE__ */ jobCancelHandler(SPEECH_JOB_TYPE);
