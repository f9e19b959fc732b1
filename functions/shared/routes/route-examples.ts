import { ORDER_TYPE } from './dynadata-type-routes';
import type { OperationId } from './route-table';
import {
  WORKFLOW_ALSO_ANSWER_EXAMPLES,
  WORKFLOW_REQUEST_EXAMPLES,
  WORKFLOW_RESPONSE_EXAMPLES,
} from './workflow-examples';

/**
 * Success examples of the operations whose table entry and `route-docs.ts` carry none, so every operation of the
 * OpenAPI document shows a typical answer (its lint checks each against the operation's schema). Keyed by
 * operation, then by status where an operation has more than one successful answer.
 */
const at = '2026-11-02T09:30:00.000Z';
const later = '2026-11-02T09:30:41.000Z';
const companyId = 'co_01jd3xq0a6m5r6y1z8k7w2v4bn';
const bucket = 'api-v1-files';
const file = (path: string) => ({ bucket, fullPath: `companies/${companyId}/${path}` });
const source = file('uploads/01jd3xq0b2/greeting.wav');

const endpoint = {
  id: 'we_01jd8x3m5q2w9r7t4y6u8i0o1p',
  url: 'https://hooks.example.com/platform',
  events: ['transcode.done', 'transcode.failed'],
  dynadataTypes: null,
  description: 'Media pipeline',
  status: 'enabled',
  disabledReason: null,
  disabledAt: null,
  failingSince: null,
  createdAt: '2026-11-23T04:00:00.000Z',
  updatedAt: '2026-11-23T04:00:00.000Z',
};
const apiKey = {
  id: 'key_01jd3xq0a7b8c9d0e1f2g3h4j5',
  name: 'demo',
  scopes: ['company:read', 'keys:admin'],
  hint: 'sk-Ab3d',
  status: 'active',
  createdAt: '2026-10-01T08:00:00.000Z',
  createdBy: 'operator',
  expiresAt: null,
  ips: null,
  lastUsedAt: at,
  revokedAt: null,
};
const restrictedKey = {
  ...apiKey,
  id: 'key_01jd3xq0c4d5e6f7g8h9j0k1m2',
  name: 'invoice sync',
  scopes: ['dynadata:read', 'dynadata:write'],
  hint: 'sk-Qm9v',
  createdAt: at,
  createdBy: apiKey.id,
  expiresAt: '2027-06-30T00:00:00.000Z',
  ips: ['203.0.113.0/24'],
  lastUsedAt: null,
};
const channel = {
  url: 'https://hooks.example.com/messages',
  createdAt: '2026-10-01T08:00:00.000Z',
  updatedAt: '2026-10-01T08:00:00.000Z',
  previousSecretExpiresAt: null,
};
const ping = {
  id: 'evt_01jd9a7k3m0v5q8r2t6w4y1z3b',
  type: 'ping',
  createdAt: '2026-11-23T04:12:07.412Z',
  data: { endpointId: endpoint.id, message: 'ping' },
};
const delivered = {
  endpointId: endpoint.id,
  status: 'delivered',
  attempts: 1,
  lastStatus: '200',
  lastAttemptAt: '2026-11-23T04:12:07.902Z',
  nextAttemptAt: null,
};

const transcriptionJob = {
  id: 'tr_01jd3xq0d1a3c5e7g9j1l3n5p7',
  status: 'done',
  language: 'en-US',
  source,
  progress: { phase: 'done', percent: 100 },
  error: null,
  reused: false,
  billedSeconds: 4,
  durationSeconds: 3.6,
  result: {
    text: 'Your order has shipped.',
    textTruncated: false,
    words: [
      { text: 'Your', start: 0.12, end: 0.41, confidence: 0.97 },
      { text: 'order', start: 0.41, end: 0.8, confidence: 0.95 },
      { text: 'has', start: 0.8, end: 1.02, confidence: 0.96 },
      { text: 'shipped.', start: 1.02, end: 1.6, confidence: 0.93 },
    ],
    wordsInFile: false,
    wordCount: 4,
    language: 'en-US',
    files: {
      json: file('transcriptions/tr_01jd3xq0d1a3c5e7g9j1l3n5p7/transcript.json'),
      srt: file('transcriptions/tr_01jd3xq0d1a3c5e7g9j1l3n5p7/transcript.srt'),
      vtt: file('transcriptions/tr_01jd3xq0d1a3c5e7g9j1l3n5p7/transcript.vtt'),
    },
  },
  createdAt: at,
  updatedAt: later,
  finishedAt: later,
};

const transcodeJob = (status: string, attempt: number) => ({
  id: 'tc_01jd3xq0c9y7w5u3s1q9n7l5j3',
  status,
  preset: 'ogg_opus',
  source,
  output: null,
  progress: status === 'pending' ? { phase: 'pending' } : null,
  error: null,
  attempt,
  reused: false,
  billedSeconds: 0,
  durationSeconds: null,
  leaseUntil: null,
  createdAt: at,
  updatedAt: later,
  finishedAt: status === 'canceled' ? later : null,
});

const step = { id: 'token', action: 'actions/security/auth/jwt/generate', with: {}, allowFailure: false };
const runOutcome = {
  runId: 'wr_01jd3xq0e5g7j9l1n3p5r7t9v1',
  status: 'success',
  ok: true,
  result: { contactId: '01jd3xq0b2c4e6g8j0m2p4r6t8' },
  files: [],
  logs: [
    {
      step: 'contact',
      action: 'actions/dynadata/create',
      status: 'succeeded',
      startedAt: at,
      durationMs: 38,
      message: null,
    },
  ],
  error: null,
  failedSteps: [],
  executionTimeMs: 52,
};

/** Request examples of the operations whose table entry and `route-docs.ts` carry none. */
export const REQUEST_EXAMPLES: Partial<Record<OperationId, unknown>> = {
  createWebhookEndpoint: { url: endpoint.url, events: endpoint.events, description: endpoint.description },
  updateWebhookEndpoint: { events: endpoint.events, description: endpoint.description, enabled: true },
  rotateWebhookSecret: { overlapSeconds: 3600 },
  redeliverEvent: { endpointId: endpoint.id },
  ...WORKFLOW_REQUEST_EXAMPLES,
};

export const RESPONSE_EXAMPLES: Partial<Record<OperationId, unknown>> = {
  ...WORKFLOW_RESPONSE_EXAMPLES,
  createWebhookEndpoint: { endpoint, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
  getOpenApiDocument: {
    openapi: '3.0.3',
    info: { title: 'Messaging and Dynamic Data Service: Public REST API', version: '1.0.0' },
    paths: { '/v1/self': { get: { operationId: 'getSelf' } } },
  },
  validateDynadataItem: {
    valid: false,
    errors: [{ pointer: '/body/emails/0/address', message: 'must be an email address' }],
  },
  getDynadataSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { title: { type: 'string' }, amount: { type: 'number' } },
    required: ['title'],
    'x-indexed': ['title'],
  },
  getDynadataLibrarySchema: {
    type: 'orders',
    library: 'zod',
    source: 'z.object({ title: z.string(), amount: z.number().optional() })',
  },
  executeDynadataItemFunction: { messageId: '01jd3xq0f7h9k1m3o5q7s9u1w3', status: 'queued' },
  createUploadUrl: {
    uploadUrl: `https://${bucket}.s3.amazonaws.com/companies/${companyId}/uploads/01jd3xq0b2/greeting.wav?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=900&X-Amz-Signature=5d41402abc4b2a76b9719d911017c592`,
    method: 'PUT',
    headers: { 'content-type': 'audio/wav', 'content-length': '96044' },
    ...source,
    expiresAt: '2026-11-02T09:45:00.000Z',
  },
  completeUpload: { ...source, size: 96044, contentType: 'audio/wav' },
  createDownloadUrl: {
    url: `https://${bucket}.s3.amazonaws.com/companies/${companyId}/uploads/01jd3xq0b2/greeting.wav?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=3600&X-Amz-Signature=7d793037a0760186574b0282f2f435e7`,
    expiresAt: '2026-11-02T10:30:00.000Z',
  },
  createTranscription: {
    job: {
      ...transcriptionJob,
      status: 'pending',
      progress: { phase: 'pending' },
      billedSeconds: 0,
      durationSeconds: null,
      result: null,
      updatedAt: at,
      finishedAt: null,
    },
  },
  getTranscription: { job: transcriptionJob },
  listTranscriptions: { jobs: [transcriptionJob], nextCursor: null },
  listTranscodes: { jobs: [transcodeJob('pending', 1)], nextCursor: 'tc_01jd3xq0c9y7w5u3s1q9n7l5j3' },
  cancelTranscode: { job: transcodeJob('canceled', 1) },
  retryTranscode: { job: transcodeJob('pending', 2) },
  synthesizeSpeech: {
    ...file('speech/01jd3xq0g1j3l5n7p9r1t3v5x7.mp3'),
    size: 18432,
    format: 'mp3',
    durationSeconds: 1.7,
    characters: 23,
    meter: 'speech_characters',
  },
  listSpeechVoices: {
    voices: [
      {
        id: 'en-US-female',
        name: 'Joanna',
        language: 'en-US',
        gender: 'female',
        engine: 'neural',
        meter: 'speech_characters',
        default: true,
      },
    ],
  },
  rewriteSpokenText: {
    text: 'Release notes. First, Faster uploads and 20 percent less memory.',
    tokens: 14,
    truncated: false,
    parts: ['Release notes. First, Faster uploads and 20 percent less memory.'],
  },
  listWorkflows: {
    workflows: [
      { id: 'welcome', version: 3, name: 'Welcome', description: null, steps: 2, updatedAt: later },
    ],
    nextCursor: null,
  },
  getWorkflow: {
    workflow: {
      id: 'welcome',
      version: 3,
      name: 'Welcome',
      description: null,
      input: { type: 'object', properties: { name: { type: 'string' } } },
      steps: [step],
      return: { token: '{{ steps.token.output.token }}' },
      on: { events: ['transcode.done'], schedule: 'cron(0 9 ? * MON-FRI *)' },
      createdAt: at,
      updatedAt: later,
    },
  },
  runWorkflow: runOutcome,
  rerunWorkflowRun: { ...runOutcome, runId: 'wr_01jd3xq0e5g7j9l1n3p5r7t9v2' },
  getWorkflowRun: {
    run: {
      ...runOutcome,
      workflowId: 'welcome',
      version: 3,
      mode: 'sync',
      createdAt: at,
      updatedAt: at,
      finishedAt: at,
      handedOffAt: null,
      trigger: { type: 'api' },
    },
  },
  listWorkflowRuns: {
    runs: [
      {
        runId: 'wr_01jd9c2b5r8t1v4x7z0a3c6e9g',
        status: 'success',
        trigger: 'event',
        startedAt: later,
        finishedAt: later,
      },
      { runId: runOutcome.runId, status: 'success', trigger: 'api', startedAt: at, finishedAt: at },
      {
        runId: 'wr_01jd3xq0e5g7j9l1n3p5r7t9v0',
        status: 'canceled',
        trigger: 'api',
        startedAt: at,
        finishedAt: at,
      },
    ],
    nextCursor: null,
  },
  listApiKeys: { keys: [apiKey], nextCursor: null },
  createApiKey: { key: restrictedKey, secret: 'sk-Qm9vZ2xlLWV4YW1wbGUta2V5LW5vdC1yZWFsLXNlY3JldA1' },
  getApiKey: { key: restrictedKey },
  revokeApiKey: {
    deleted: true,
    id: restrictedKey.id,
    key: { ...restrictedKey, status: 'revoked', revokedAt: later },
  },
  getMessageChannel: { channel },
  putMessageChannel: { channel: { ...channel, updatedAt: later }, secret: null },
  deleteMessageChannel: { deleted: true },
  rotateMessageChannelSecret: {
    channel: { ...channel, updatedAt: later, previousSecretExpiresAt: '2026-11-03T09:30:41.000Z' },
    secret: 'whsec_m1Xc8sKq2Vr7Tz4Wb9Ln3Hy6Pd0Fg5Je',
    previousSecretExpiresAt: '2026-11-03T09:30:41.000Z',
  },
  listWebhookEndpoints: { endpoints: [endpoint], nextCursor: null },
  getWebhookEndpoint: { endpoint },
  deleteWebhookEndpoint: { deleted: true, id: endpoint.id },
  testWebhookEndpoint: { event: ping },
  updateWebhookEndpoint: { endpoint },
  rotateWebhookSecret: {
    endpoint,
    secret: 'whsec_q3Vb0nXk7TzR2mW9pL4sH8dY1cF6gJ5e',
    previousSecretExpiresAt: '2026-11-23T05:00:00.000Z',
  },
  listWebhookDeliveries: {
    deliveries: [
      {
        eventId: ping.id,
        eventType: ping.type,
        status: 'delivered',
        attempts: 1,
        lastStatus: '200',
        lastAttemptAt: delivered.lastAttemptAt,
        nextAttemptAt: null,
        lastDurationMs: 87,
      },
    ],
    nextCursor: null,
  },
  redeliverEvent: { event: { ...ping, deliveries: [{ ...delivered, status: 'pending', attempts: 0 }] } },
  listEvents: { events: [ping], nextCursor: null, next: null },
  getEvent: { event: { ...ping, deliveries: [delivered] } },
};

/** Examples of the other successful answers, by operation and status. */
export const ALSO_ANSWER_EXAMPLES: Partial<Record<OperationId, Record<number, unknown>>> = {
  runWorkflow: { 202: { runId: 'wr_01jd3xq0e5g7j9l1n3p5r7t9v1' } },
  deleteDynadataType: {
    202: { deleted: false, name: 'orders', status: 'deleting', deletedItems: 500, remainingItems: 1200 },
  },
  upsertDynadataItem: {
    201: {
      _id: 'crm-1042',
      _version: 1,
      createdAt: '2026-11-02T09:15:00.000Z',
      updatedAt: '2026-11-02T09:15:00.000Z',
      name: 'Ada Lovelace',
    },
  },
  putDynadataType: { 201: { type: { ...ORDER_TYPE, version: 1, updatedAt: ORDER_TYPE.createdAt } } },
  rerunWorkflowRun: { 202: { runId: 'wr_01jd3xq0e5g7j9l1n3p5r7t9v3' } },
  putMessageChannel: { 201: { channel, secret: 'whsec_q3Vb0nXk7TzR2mW9pL4sH8dY1cF6gJ5e' } },
  putWorkflowSecret: {
    201: {
      secret: {
        name: 'CRM_TOKEN',
        description: 'Bearer token of the CRM API',
        version: 1,
        createdAt: '2026-11-02T09:15:00.000Z',
        updatedAt: '2026-11-02T09:15:00.000Z',
      },
    },
  },
  ...WORKFLOW_ALSO_ANSWER_EXAMPLES,
};

/** Examples of the answers that are not JSON, by media type. */
export const MEDIA_EXAMPLES: Readonly<Record<string, string>> = {
  'text/html':
    '<!doctype html><html lang="en"><head><title>API reference</title></head><body>…</body></html>',
  'text/css': '.swagger-ui .topbar { display: none; }',
  'text/javascript': 'window.onload = () => { /* … */ };',
};
