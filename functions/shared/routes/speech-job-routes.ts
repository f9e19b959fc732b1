import { createSpeechJobBodySchema } from '../domain/speech-request';
import { enqueueJobRoute, jobRoute, listJobsRoute } from './job-routes';
import { speechJobResponseSchema, speechJobSchema } from './speech-job-schemas';

/**
 * The routes of long-form speech jobs (group `speech`): a section of the route table (`route-table.ts` joins
 * the sections into `ROUTES`), imported by the speech group's function with the speech routes.
 */
const at = '2026-11-02T09:30:00.000Z';
const done = '2026-11-02T09:30:41.000Z';
const folder = 'companies/co_01jd3xq0a6m5r6y1z8k7w2v4bn/speech-jobs/sj_01jd3xq0h2k4m6p8r0t2v4x6z8/a1/';
const exampleJob = {
  id: 'sj_01jd3xq0h2k4m6p8r0t2v4x6z8',
  status: 'done',
  voiceProfileId: 'en-US-joanna',
  format: 'mp3',
  characters: 12000,
  timings: true,
  progress: { phase: 'done', percent: 100 },
  error: null,
  reused: false,
  billedCharacters: 12000,
  durationSeconds: 812.4,
  result: {
    audio: { bucket: 'api-v1-files', fullPath: `${folder}3f1c9a.mp3`, size: 6499200, format: 'mp3' },
    timings: { bucket: 'api-v1-files', fullPath: `${folder}timings.json`, sentences: 164 },
  },
  createdAt: at,
  updatedAt: done,
  finishedAt: done,
};
const pendingJob = {
  ...exampleJob,
  status: 'pending',
  progress: { phase: 'pending' },
  billedCharacters: 0,
  durationSeconds: null,
  result: null,
  updatedAt: at,
  finishedAt: null,
};

const JOBS = { group: 'speech', path: '/v1/speech/jobs', tag: 'Speech', scope: 'speech:write' } as const;
const READS = { ...JOBS, scope: 'speech:read' } as const;

export const SPEECH_JOB_ROUTES = [
  enqueueJobRoute({
    ...JOBS,
    operationId: 'createSpeechJob',
    sdk: 'speech.jobs.create',
    summary: 'Enqueue a long-form speech job',
    description:
      'Turns up to 100,000 characters of text (or the spoken form of markdown) into ONE stored audio file and ' +
      'a JSON timing file of its sentences (`timings: false`: the audio only, at half the engine cost), ' +
      'asynchronously. Answers 202 with the job; poll GET /v1/speech/jobs/{id}. An identical request (same ' +
      'spoken text, voice, format and timings) whose earlier result is still stored is reused ' +
      '(`reused: true`, nothing billed). Bills the characters to `speech_characters` ' +
      "when done; 429 `speech_quota_exceeded` when they would pass the month's allowance, 429 " +
      "`speech_job_queue_full` (Retry-After) at the plan's cap of unfinished jobs. Honours Idempotency-Key.",
    body: createSpeechJobBodySchema,
    response: speechJobResponseSchema,
    successStatus: 202,
    errors: ['speech_quota_exceeded', 'speech_job_queue_full', 'service_unavailable'],
    examples: {
      request: { markdown: '# Chapter one\n\nIt was a bright cold day in April.', format: 'mp3' },
      response: { job: pendingJob },
    },
    doors: {
      agent: {
        tool: 'create_speech_job',
        title: 'Start a long-form speech job',
        description:
          'Turns text or the spoken form of markdown (up to 100,000 characters) into one stored audio file and a ' +
          'timing file (none with `timings: false`), as POST /v1/speech/jobs, and answers the job as ' +
          'get_speech_job shows it.',
        effect: 'create',
        answer: 'job',
      },
      workflow: { action: 'actions/media/speech', maxDurationMs: 10_000 },
    },
  }),
  Object.assign(
    listJobsRoute({
      ...READS,
      operationId: 'listSpeechJobs',
      sdk: 'speech.jobs.list',
      summary: 'List speech jobs, newest first',
      description: 'The company’s speech jobs, newest first, `limit` per page.',
      view: speechJobSchema,
      doors: {
        agent: {
          tool: 'list_speech_jobs',
          title: 'List speech jobs',
          description: 'The company’s long-form speech jobs, newest first, as GET /v1/speech/jobs.',
          effect: 'read',
        },
      },
    }),
    { examples: { response: { jobs: [exampleJob], nextCursor: null } } },
  ),
  Object.assign(
    jobRoute({
      ...READS,
      method: 'GET',
      path: '/v1/speech/jobs/{id}',
      operationId: 'getSpeechJob',
      sdk: { method: 'speech.jobs.get', waitUntilDone: 'job' },
      summary: 'Fetch a speech job',
      description:
        'The job and, when `done`, its files: the audio and the JSON timing file of its sentences ' +
        '(`[{text, start, end}]`, milliseconds, in order, covering the audio; `null` when asked with ' +
        '`timings: false`). Another company’s id is 404.',
      response: speechJobResponseSchema,
      errors: ['not_found'],
      doors: {
        agent: {
          tool: 'get_speech_job',
          title: 'Get a speech job',
          description:
            'A long-form speech job exactly as GET /v1/speech/jobs/{id} shows it under `job`: status and, when ' +
            'done, the audio file and the JSON timing file of its sentences.',
          effect: 'read',
          answer: 'job',
        },
        workflow: { action: 'actions/media/speech/get', maxDurationMs: 5_000 },
      },
    }),
    { examples: { response: { job: exampleJob } } },
  ),
  Object.assign(
    jobRoute({
      ...JOBS,
      method: 'POST',
      path: '/v1/speech/jobs/{id}/cancel',
      operationId: 'cancelSpeechJob',
      sdk: 'speech.jobs.cancel',
      summary: 'Cancel an unfinished speech job',
      description:
        'Moves a `pending` or `synthesizing` job to `canceled` and stops its synthesis (nothing is billed). A ' +
        'finished job answers 409 `speech_job_not_cancelable` with its `jobStatus`.',
      response: speechJobResponseSchema,
      errors: ['not_found', 'speech_job_not_cancelable', 'conflict'],
    }),
    {
      examples: {
        response: {
          job: { ...pendingJob, status: 'canceled', progress: null, updatedAt: done, finishedAt: done },
        },
      },
    },
  ),
] as const;
