import { enqueueJobRoute, jobRoute, listJobsRoute } from './job-routes';
import {
  createTranscodeBodySchema,
  transcodeJobResponseSchema,
  transcodeJobSchema,
} from './transcode-schemas';

const JOBS = { group: 'transcodes', path: '/v1/transcodes', tag: 'Media transforms' } as const;

/**
 * The routes of media transforms (group `transcodes`): a section of the route table (`route-table.ts` joins
 * the sections into `ROUTES`), imported alone by the group's function, so its bundle holds only its own
 * routes.
 */
export const TRANSCODE_ROUTES = [
  enqueueJobRoute({
    ...JOBS,
    scope: 'transcodes:write',
    operationId: 'createTranscode',
    sdk: 'transcodes.create',
    summary: 'Enqueue a media transform job',
    description:
      'Converts one of your stored audio or video files to a preset format, asynchronously. Answers 202 with ' +
      'the job; poll GET /v1/transcodes/{id}. A source whose content (ETag and size) was already converted ' +
      'to the same preset is reused (`reused: true`, nothing billed). 429 `transcode_quota_exceeded` when ' +
      "the month's transcode seconds are used up; 429 `transcode_queue_full` (Retry-After) at the plan's " +
      'cap of unfinished jobs.',
    body: createTranscodeBodySchema,
    response: transcodeJobResponseSchema,
    successStatus: 202,
    errors: [
      'not_found',
      'invalid_storage_reference',
      'transcode_quota_exceeded',
      'transcode_queue_full',
      'service_unavailable',
    ],
    examples: {
      request: { fullPath: 'companies/co_01jd3xq0a6/uploads/01jd3xq0b2/greeting.wav', preset: 'ogg_opus' },
    },
    doors: {
      agent: {
        tool: 'create_transcode_job',
        title: 'Start a media transform job',
        description:
          'Converts a stored audio or video file to a preset format, as POST /v1/transcodes, and answers the ' +
          'job as get_transcode_job shows it (read it again until `done`). A repeat of a converted source is ' +
          'reused, nothing billed.',
        effect: 'create',
        answer: 'job',
      },
      workflow: { action: 'actions/media/transcode', maxDurationMs: 5_000 },
    },
  }),
  listJobsRoute({
    ...JOBS,
    scope: 'transcodes:read',
    operationId: 'listTranscodes',
    sdk: 'transcodes.list',
    summary: 'List media transform jobs, newest first',
    description: 'The company’s transform jobs of the last 30 days and more, newest first, `limit` per page.',
    view: transcodeJobSchema,
    doors: {
      agent: {
        tool: 'list_transcode_jobs',
        title: 'List media transform jobs',
        description: 'The company’s media transform jobs, newest first, as GET /v1/transcodes.',
        effect: 'read',
      },
    },
  }),
  jobRoute({
    ...JOBS,
    method: 'GET',
    path: '/v1/transcodes/{id}',
    scope: 'transcodes:read',
    operationId: 'getTranscode',
    sdk: { method: 'transcodes.get', waitUntilDone: 'job' },
    summary: 'Fetch a media transform job',
    response: transcodeJobResponseSchema,
    errors: ['not_found'],
    doors: {
      agent: {
        tool: 'get_transcode_job',
        title: 'Get a media transform job',
        description:
          'A media transform (transcode) job exactly as GET /v1/transcodes/{id} shows it under `job`: status ' +
          '(pending, probing, transcoding, finalizing, done, failed, canceled) and, when done, the output file.',
        effect: 'read',
        answer: 'job',
      },
      workflow: { action: 'actions/media/transcode/get', maxDurationMs: 5_000 },
    },
  }),
  jobRoute({
    ...JOBS,
    method: 'POST',
    path: '/v1/transcodes/{id}/cancel',
    scope: 'transcodes:write',
    operationId: 'cancelTranscode',
    sdk: 'transcodes.cancel',
    summary: 'Cancel an unfinished job',
    description:
      'Moves a `pending`, `probing`, `transcoding` or `finalizing` job to `canceled`, clears its worker lease ' +
      'and stops its conversion. A finished job answers 409 `transcode_job_not_cancelable` with its `jobStatus`.',
    response: transcodeJobResponseSchema,
    errors: ['not_found', 'transcode_job_not_cancelable', 'conflict'],
  }),
  jobRoute({
    ...JOBS,
    method: 'POST',
    path: '/v1/transcodes/{id}/retry',
    scope: 'transcodes:write',
    operationId: 'retryTranscode',
    sdk: 'transcodes.retry',
    summary: 'Re-run a failed or canceled job',
    description:
      'Re-runs a `failed` or `canceled` job from scratch as the next `attempt`, subject to the same quota and ' +
      'queue checks as enqueueing. Any other state, or a worker lease still in the future, answers 409 ' +
      '`transcode_job_not_retryable` with its `jobStatus` (and `leaseUntil` for a lease).',
    response: transcodeJobResponseSchema,
    successStatus: 202,
    errors: [
      'not_found',
      'transcode_job_not_retryable',
      'transcode_quota_exceeded',
      'transcode_queue_full',
      'service_unavailable',
    ],
  }),
] as const;
