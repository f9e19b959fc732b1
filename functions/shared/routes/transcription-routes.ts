import { jobRoute, listJobsRoute } from './job-routes';
import { route } from './route-definition';
import {
  createTranscriptionBodySchema,
  transcriptionJobResponseSchema,
  transcriptionJobSchema,
} from './transcription-schemas';

const JOBS = { group: 'transcriptions', path: '/v1/transcriptions', tag: 'Transcriptions' } as const;

/**
 * The routes of transcriptions (group `transcriptions`): a section of the route table (`route-table.ts` joins
 * the sections into `ROUTES`), imported alone by the group's function, so its bundle holds only its own
 * routes.
 */
export const TRANSCRIPTION_ROUTES = [
  route({
    method: 'POST',
    path: '/v1/transcriptions',
    group: 'transcriptions',
    operationId: 'createTranscription',
    sdk: 'transcriptions.create',
    answersEtag: 'job',
    summary: 'Enqueue a transcription job',
    description:
      'Transcribes one of your stored audio files (or the sound of a video), asynchronously. Answers 202 ' +
      'with the job; poll GET /v1/transcriptions/{id}. When `done`, the job has the text, the timed words and ' +
      'the transcript as JSON, SRT and WebVTT stored objects. A source whose content (ETag and size) was ' +
      'already transcribed in the same language is reused (`reused: true`, nothing billed). 429 ' +
      "`transcription_quota_exceeded` when the month's transcription seconds are used up; 429 " +
      "`transcription_queue_full` (Retry-After) at the plan's cap of unfinished jobs.",
    tag: 'Transcriptions',
    scope: 'transcriptions:write',
    get body() {
      return createTranscriptionBodySchema();
    },
    get response() {
      return transcriptionJobResponseSchema();
    },
    successStatus: 202,
    idempotency: 'keyed',
    errors: [
      'not_found',
      'invalid_storage_reference',
      'transcription_quota_exceeded',
      'transcription_queue_full',
      'service_unavailable',
    ],
    examples: {
      request: { fullPath: 'companies/co_01jd3xq0a6/uploads/01jd3xq0b2/call.wav', language: 'en-US' },
    },
    agent: {
      tool: 'create_transcription_job',
      title: 'Start a transcription job',
      description:
        'Transcribes a stored audio file (or the sound of a video), as POST /v1/transcriptions, and answers the ' +
        'job as get_transcription_job shows it (read it again until `done`).',
      effect: 'create',
      answer: 'job',
    },
    workflow: { action: 'actions/media/transcribe', maxDurationMs: 5_000 },
  }),
  listJobsRoute({
    ...JOBS,
    scope: 'transcriptions:read',
    operationId: 'listTranscriptions',
    sdk: 'transcriptions.list',
    summary: 'List transcription jobs, newest first',
    description: 'The company’s transcription jobs, newest first, `limit` per page.',
    view: transcriptionJobSchema,
    doors: {
      agent: {
        tool: 'list_transcription_jobs',
        title: 'List transcription jobs',
        description: 'The company’s transcription jobs, newest first, as GET /v1/transcriptions.',
        effect: 'read',
      },
    },
  }),
  jobRoute({
    ...JOBS,
    method: 'GET',
    path: '/v1/transcriptions/{id}',
    scope: 'transcriptions:read',
    operationId: 'getTranscription',
    sdk: { method: 'transcriptions.get', waitUntilDone: 'job' },
    summary: 'Fetch a transcription job',
    response: transcriptionJobResponseSchema,
    errors: ['not_found'],
    doors: {
      agent: {
        tool: 'get_transcription_job',
        title: 'Get a transcription job',
        description:
          'A transcription job exactly as GET /v1/transcriptions/{id} shows it under `job`: status and, when ' +
          'done, the text, timed words and transcript files.',
        effect: 'read',
        answer: 'job',
      },
      workflow: { action: 'actions/media/transcribe/get', maxDurationMs: 5_000 },
    },
  }),
] as const;
