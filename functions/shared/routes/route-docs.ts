import type { OperationId } from './route-table';

/**
 * Prose and examples of the OpenAPI document for the routes whose table entry does not carry its own: what
 * an operation does for the caller, and what a typical answer looks like. An entry's own `description` and
 * `examples` in the route table win over these. The document's lint checks every example against its schema.
 */
export interface RouteDocs {
  description?: string;
  examples?: { request?: unknown; response?: unknown };
}

const at = '2026-11-02T09:30:00.000Z';
const later = '2026-11-02T09:30:41.000Z';
const companyId = 'co_01jd3xq0a6m5r6y1z8k7w2v4bn';
const bucket = 'api-v1-files';
const subscription = {
  status: 'active',
  currentPeriodStart: '2026-10-15T00:00:00.000Z',
  currentPeriodEnd: '2026-11-15T00:00:00.000Z',
};
const limits = {
  requestsPerSecond: 50,
  burst: 100,
  apiRequestsPerMonth: 500000,
  storageBytes: 10737418240,
  maxObjectBytes: 104857600,
  databaseBytes: 1073741824,
  transcodeSecondsPerMonth: 36000,
  transcodeQueueCap: 10,
  transcodeMaxSourceBytes: 524288000,
  transcodeMaxDurationSeconds: 7200,
  transcriptionSecondsPerMonth: 36000,
  transcriptionQueueCap: 10,
  transcriptionMaxSourceBytes: 524288000,
  transcriptionMaxDurationSeconds: 7200,
  speechCharactersPerMonth: 1000000,
  speechJobQueueCap: 10,
  workflowRunsPerMonth: 10000,
  workflowRunComputeMs: 120000,
  workflowForEachItems: 500,
  logRetentionDays: 90,
  webhookEndpoints: 10,
  workflows: 50,
  dynadataTypes: 50,
  dynadataFieldsPerType: 200,
};
const contact = {
  _id: '01jd3xq0b2c4e6g8j0m2p4r6t8',
  _version: 1,
  createdAt: at,
  updatedAt: at,
  name: 'Ada Lovelace',
  emails: [{ label: 'work', address: 'ada@example.org' }],
};
const source = { bucket, fullPath: `companies/${companyId}/uploads/01jd3xq0b2/greeting.wav` };
const transcodeJob = {
  id: 'tc_01jd3xq0c9y7w5u3s1q9n7l5j3',
  status: 'done',
  preset: 'ogg_opus',
  source,
  output: { bucket, fullPath: `companies/${companyId}/transcodes/tc_01jd3xq0c9y7w5u3s1q9n7l5j3.ogg` },
  progress: { phase: 'finalizing', percent: 100 },
  error: null,
  attempt: 1,
  reused: false,
  billedSeconds: 37,
  durationSeconds: 36.4,
  leaseUntil: null,
  createdAt: at,
  updatedAt: later,
  finishedAt: later,
};

export const ROUTE_DOCS: Partial<Record<OperationId, RouteDocs>> = {
  listPublicPlans: {
    examples: {
      response: {
        plans: [
          {
            id: 'starter',
            name: 'Starter',
            description: 'For a team getting started.',
            sellable: true,
            price: { amount: 4900, currency: 'EUR', interval: 'month' },
            limits,
          },
        ],
      },
    },
  },
  getOpenApiDocument: {
    description:
      'The OpenAPI 3.0 document of every live route of this deployment, generated from the same route table ' +
      'the API serves; GET /v1/docs renders it. Compressed when the client accepts it (`Accept-Encoding`: `br` ' +
      'or `gzip`, answered in `Content-Encoding`, with `Vary: Accept-Encoding`). A strong `ETag` from the ' +
      'content (one per coding): `If-None-Match` with it answers 304 without a body until the API changes. ' +
      'Needs no credential; not metered.',
  },
  getSelf: {
    description:
      'The company the credential acts for: its name, status, plan and subscription period. The cheapest ' +
      'authenticated call, and a good first one to check a key.',
    examples: {
      response: {
        company: {
          id: companyId,
          name: 'Acme Logistics',
          status: 'active',
          planId: 'starter',
          createdAt: '2026-01-15T08:00:00.000Z',
          subscription,
        },
      },
    },
  },
  sendMessage: {
    description:
      'Queues a message to one contact (an item of the built-in type `contacts`) and answers 202 with the ' +
      'stored message id; delivery to the company’s webhook channel runs asynchronously (`queued` → `sent` ' +
      'or `failed`, readable as items of the type `messages`). A file can be attached by storage reference. ' +
      'With `sendAt` (up to 30 days ahead) the message is stored `scheduled` and sent then; ' +
      'POST /v1/messages/{id}/cancel cancels it until then.',
  },
  listDynadataTypes: {
    description:
      'Every Dynadata type of the company: the built-in `contacts`, `messages` and `log_entries` (the ' +
      'read-only audit trail of API traffic) and the custom types, each with its indexed (sortable) fields ' +
      'and functions.',
    examples: {
      response: {
        types: [
          {
            name: 'contacts',
            description: 'People the company sends messages to.',
            builtIn: true,
            writable: true,
            indexed: ['name'],
            functions: ['count', 'sendMessage'],
          },
          {
            name: 'log_entries',
            description: 'The audit trail of the company’s API traffic.',
            builtIn: true,
            writable: false,
            indexed: [],
            functions: ['count'],
          },
        ],
        nextCursor: null,
      },
    },
  },
  listDynadataItems: {
    description:
      'One page of items of a type, newest first unless `sort` says otherwise; `filter` matches fields ' +
      '(equality, prefix, ranges). Pass `nextCursor` as `cursor` for the next page: cursors are signed and ' +
      'bound to the company.',
    examples: { response: { items: [contact], nextCursor: null } },
  },
  getDynadataItem: {
    description: 'One item by `_id`. An item of another company answers 404, exactly like a missing one.',
    examples: { response: contact },
  },
  createDynadataItem: {
    description:
      'Creates an item from its fields, validated against the type’s JSON Schema (readable at …/schema), ' +
      'and answers it with its system fields (`_id`, `_version` 1, timestamps). Document fields take a ' +
      'storage reference to one of your stored files. `log_entries` is read-only: 403 ' +
      '`log_entry_writes_not_allowed`.',
    examples: { response: contact },
  },
  updateDynadataItem: {
    description:
      'Applies a JSON merge patch to an item (`_id` names it; with `_version`, a stale version answers 409 ' +
      '`conflict`) and validates the merged item as a whole. `log_entries` is read-only.',
    examples: {
      request: { _id: contact._id, _version: 1, name: 'Ada King' },
      response: { ...contact, _version: 2, name: 'Ada King', updatedAt: later },
    },
  },
  deleteDynadataItem: {
    description: 'Deletes an item. `log_entries` is read-only.',
    examples: { response: { deleted: true, _id: contact._id } },
  },
  validateDynadataItem: {
    description:
      'Checks fields against the type’s schema exactly as create would, and answers every violation with ' +
      'its JSON pointer, without saving anything.',
  },
  getDynadataSchema: {
    description:
      'The JSON Schema (draft 2020-12) of a type’s fields, with `x-document` on fields that hold a storage ' +
      'reference and `x-indexed` listing sortable fields.',
  },
  getDynadataLibrarySchema: {
    description:
      'The same schema as source code of a validation library (`zod`), ready to paste into a client.',
  },
  executeDynadataTypeFunction: {
    description:
      'Runs a function of the type: `count` (items, optionally filtered; a large count continues with its ' +
      '`cursor`). Honours Idempotency-Key.',
  },
  executeDynadataItemFunction: {
    description:
      'Runs a function on one item: `sendMessage` on a contact (as send_message). Honours Idempotency-Key.',
  },
  createUploadUrl: {
    description:
      'Step 1 of an upload: reserves a path under `companies/<companyId>/uploads/` and answers a signed PUT ' +
      'URL with the exact headers to send (valid 15 minutes). The size must fit the plan’s largest file. ' +
      'With `checksumSha256` the URL is signed for that content: storage refuses other bytes (400 `BadDigest`).',
  },
  completeUpload: {
    description:
      'Step 2 of an upload: checks that the object arrived as reserved (size and content type), counts it ' +
      'in the storage usage, and answers the stored object. Its `{bucket, fullPath}` is the storage ' +
      'reference other routes take.',
  },
  listFiles: {
    description:
      'Your stored objects (uploads and the files jobs wrote) whose `fullPath` starts with `prefix`, in path ' +
      'order, `limit` a page (default 100). A file uploaded with a checksum has `checksumSha256` and ' +
      '`checksumType` (`FULL_OBJECT`, or `COMPOSITE` for a multipart upload). Objects stored before the list ' +
      'existed appear once an operator has reindexed them (see the storage guide).',
  },
  deleteFile: {
    description:
      'Deletes one of your stored objects, given as `fullPath` (and optionally `bucket`) in the query string, ' +
      'and subtracts its bytes from the storage usage once. A file that an unfinished transcode or ' +
      'transcription reads is refused with 409 `file_in_use`; a second delete answers 404.',
  },
  createDownloadUrl: {
    description:
      'A presigned GET URL of one of your stored objects, valid from 1 second to 7 days (default one hour). ' +
      'Anyone holding the URL can download until it expires.',
  },
  getTranscription: {
    description:
      'A transcription job: its status and, once `done`, the text, the timed words and the transcript ' +
      'files (JSON, SRT, WebVTT). Also the MCP tool `get_transcription_job`.',
  },
  createTranscode: {
    examples: {
      response: {
        job: {
          ...transcodeJob,
          status: 'pending',
          output: null,
          progress: null,
          billedSeconds: 0,
          durationSeconds: null,
          updatedAt: at,
          finishedAt: null,
        },
      },
    },
  },
  getTranscode: {
    description:
      'A media transform job: its status, progress and, once `done`, the converted file (download it with ' +
      'GET /v1/storage/url). Also the MCP tool `get_transcode_job`, which answers the same job.',
    examples: { response: { job: transcodeJob } },
  },
  listSpeechVoices: {
    description:
      'The voice profiles POST /v1/speech can use, with their language and the meter each one bills; ' +
      '`default: true` marks the one used when none is named.',
  },
  getUsage: {
    description:
      'Meters of the current UTC month (or, with `granularity=day`, of today so far), compute time by ' +
      'category, storage and database bytes, the plan with its resolved limits and the subscription period. ' +
      'The MCP tool `get_usage` answers the same snapshot without the `{success, usage}` wrapper.',
    examples: {
      response: {
        success: true,
        usage: {
          window: {
            granularity: 'month',
            start: '2026-11-01T00:00:00.000Z',
            end: '2026-12-01T00:00:00.000Z',
          },
          asOf: at,
          meters: {
            api_requests: 1287,
            transcode_seconds: 412,
            transcription_seconds: 95,
            speech_characters: 5120,
            workflow_runs: 3,
          },
          computeMs: { api: 86120, workers: 14032, media: 52310, workflows: 910 },
          storageBytes: 73400320,
          databaseBytes: 1048576,
          plan: { id: 'starter', name: 'Starter', limits },
          subscription,
        },
      },
    },
  },
};
