import { toPublicTranscription } from '../domain/jobs/public-views';
import {
  enqueueTranscription,
  getTranscription as readTranscription,
  listTranscriptions as transcriptionPage,
} from '../domain/transcriptions';
import type { RouteHandler } from '../http/router';

/** What each operation of transcriptions does: the group's routes, its MCP tools and its workflow actions. */
export const createTranscription: RouteHandler<'createTranscription'> = async ({ auth, body, now }) => ({
  body: { job: toPublicTranscription(await enqueueTranscription(auth.companyId, body, now)) },
});
export const listTranscriptions: RouteHandler<'listTranscriptions'> = async ({ auth, query }) => ({
  body: await transcriptionPage(auth.companyId, query),
});
export const getTranscription: RouteHandler<'getTranscription'> = async ({ auth, params }) => ({
  body: { job: toPublicTranscription(await readTranscription(auth.companyId, params.id)) },
});
