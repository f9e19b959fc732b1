import type { JsonSchema } from '../domain/dynadata/json-schema-shapes';
import { ERROR_CATALOG, type ErrorCode } from '../errors';
import type { RouteDefinition } from '../routes/route-table';
import { headerRef, RATE_LIMIT_HEADERS } from './openapi-components';

/**
 * Problems in the OpenAPI document: which codes an operation can answer (those of the chain it runs through,
 * `chainCodes`, plus those its own work declares in the route table, `errors`), the Problem schema with
 * every member a problem can carry, and the response of each error status listing its codes as an enum.
 */
/** Codes every route of its kind can answer, whatever its own work: the chain's and API Gateway's. */
export const chainCodes = (route: RouteDefinition): ErrorCode[] => {
  const gated = route.scope !== 'public';
  // A route open to any credential checks finer scopes inside its answer (MCP tools), never as a 403.
  const scoped = gated && route.scope !== 'authenticated';
  return [
    'internal',
    'throttled',
    // Every request is refused deeper than the workflow hop limit (`http/hop-limit-guard.ts`).
    'hop_limit_exceeded',
    // Refused at the edge before any route runs: a URL over 8192 bytes, request line and headers too large.
    'uri_too_long',
    'request_header_fields_too_large',
    ...(route.planned ? (['not_implemented'] as const) : (['validation_failed'] as const)),
    // Every request with a credential is metered: refused at the allowance, or answered 503 when the meter's
    // write is throttled (`http/meter-api-requests.ts`).
    ...(gated ? (['unauthorized', 'forbidden', 'quota_exceeded', 'service_unavailable'] as const) : []),
    ...(scoped ? (['insufficient_scope'] as const) : []),
    // API Gateway refuses a body over 10 MB on any route with one; the media type is checked when it is read.
    ...(route.body ? (['payload_too_large'] as const) : []),
    ...(route.body && !route.planned ? (['unsupported_media_type'] as const) : []),
    ...(route.idempotency === 'keyed' && !route.planned
      ? (['idempotency_key_reused', 'idempotency_request_in_progress'] as const)
      : []),
    ...(route.idempotency === 'refused' ? (['idempotency_key_not_supported'] as const) : []),
    ...(route.ifMatch || route.createOnlyIfNoneMatch ? (['precondition_failed'] as const) : []),
    ...(route.writesItemsOfType ? (['log_entry_writes_not_allowed'] as const) : []),
  ];
};

/** Every problem code an operation can answer, by HTTP status. */
export const codesByStatus = (route: RouteDefinition): Map<number, ErrorCode[]> => {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set([...chainCodes(route), ...(route.errors ?? [])])) {
    const { status } = ERROR_CATALOG[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus.entries()].sort(([a], [b]) => a - b));
};

/**
 * The member that carries a resource's own status on each problem refusing a change because of that status
 * (docs/openapi.md, Conventions, rule 5): every `*_not_cancelable` and `*_not_retryable` code has one, never
 * named `status` (the problem's own `status` is the HTTP status), with an example status for the document.
 */
export const RESOURCE_STATUS_MEMBERS = {
  transcode_job_not_cancelable: { member: 'jobStatus', example: 'done' },
  transcode_job_not_retryable: { member: 'jobStatus', example: 'done' },
  speech_job_not_cancelable: { member: 'jobStatus', example: 'done' },
  workflow_run_not_cancelable: { member: 'runStatus', example: 'success' },
  message_not_cancelable: { member: 'messageStatus', example: 'sent' },
} as const satisfies Partial<Record<ErrorCode, { member: string; example: string }>>;

/** The codes of `RESOURCE_STATUS_MEMBERS` whose problems carry `member`, for its description. */
const codesCarrying = (member: string): string =>
  Object.entries(RESOURCE_STATUS_MEMBERS)
    .filter(([, carried]) => carried.member === member)
    .map(([code]) => `\`${code}\``)
    .join(', ');

const PROBLEM_EXTENSIONS: Record<string, JsonSchema> = {
  errors: {
    type: 'array',
    description:
      'Every violation, each with a JSON pointer rooted at `/body`, `/query`, `/params` or `/path`.',
    items: {
      type: 'object',
      required: ['pointer', 'message'],
      properties: { pointer: { type: 'string' }, message: { type: 'string' } },
    },
  },
  requiredScope: { type: 'string', description: '`insufficient_scope`: the scope the credential lacks.' },
  meter: { type: 'string', description: 'Quota codes: the meter whose monthly allowance is used up.' },
  limit: { type: 'integer', description: 'The limit that was reached (quota, queue cap, size in bytes).' },
  used: { type: 'integer', description: '`transcode_quota_exceeded`: what the month has used so far.' },
  jobStatus: { type: 'string', description: `${codesCarrying('jobStatus')}: the status the job is in.` },
  leaseUntil: { type: 'string', format: 'date-time', description: 'A worker holds the job until then.' },
  currentVersion: { type: 'integer', description: '`conflict` on update: the item version now stored.' },
  maxItemBytes: { type: 'integer', description: '`payload_too_large` on items: the largest item accepted.' },
  operation: {
    type: 'integer',
    description: 'Batch codes: the index of the operation refused (an atomic batch wrote nothing).',
  },
  supportedLibraries: {
    type: 'array',
    items: { type: 'string' },
    description: 'Schema libraries `GET …/schema/{library}` supports.',
  },
  declared: {
    type: 'object',
    description: '`upload_mismatch`: the size, content type and checksum (when given) that were reserved.',
    properties: {
      size: { type: 'integer' },
      contentType: { type: 'string' },
      checksumSha256: { type: 'string' },
    },
  },
  received: {
    type: 'object',
    description: '`upload_mismatch`: the size, content type and checksum (when stored) that were uploaded.',
    properties: {
      size: { type: 'integer' },
      contentType: { type: 'string' },
      checksumSha256: { type: 'string' },
    },
  },
  jobIds: {
    type: 'array',
    items: { type: 'string' },
    description: '`file_in_use`: the unfinished jobs that read the file.',
  },
  messageStatus: {
    type: 'string',
    description: `${codesCarrying('messageStatus')}, \`message_status_regression\`: the status the message already has (\`sent\`, \`read\`, …).`,
  },
  runStatus: {
    type: 'string',
    description: `${codesCarrying('runStatus')}: the status the run already has (\`success\`, \`canceled\`, …).`,
  },
  requested: { type: 'integer', description: 'Quota codes: the units the refused job would have used.' },
  itemCount: { type: 'integer', description: '`type_has_items`: the items the Dynadata type still holds.' },
  fields: { type: 'integer', description: '`dynadata_field_limit_reached`: the fields the schema declares.' },
  breakingItems: {
    type: 'integer',
    description: '`type_change_breaks_items`: the stored items the new schema would refuse.',
  },
  complete: {
    type: 'boolean',
    description: '`type_change_breaks_items`: whether every stored item was checked (false: more may break).',
  },
  sample: {
    type: 'array',
    description: '`type_change_breaks_items`: up to five of those items, each with its first violation.',
    items: {
      type: 'object',
      properties: { _id: { type: 'string' }, pointer: { type: 'string' }, message: { type: 'string' } },
    },
  },
  scopes: {
    type: 'array',
    items: { type: 'string' },
    description: '`api_key_scopes_exceed_caller`: the scopes asked for that the caller does not hold.',
  },
  ips: {
    type: 'array',
    items: { type: 'string' },
    description: "`api_key_ips_exceed_caller`: the addresses asked for outside the caller's own.",
  },
  invalidScopes: {
    type: 'array',
    items: { type: 'string' },
    description: 'A token asked for with scopes that do not exist: those scopes.',
  },
  given: { type: 'string', description: '`multipart_checksum_mismatch`: the composite checksum sent.' },
  computed: {
    type: 'string',
    description: "`multipart_checksum_mismatch`: the composite of the parts' checksums.",
  },
  allow: {
    type: 'array',
    items: { type: 'string' },
    description: '`method_not_allowed`: the methods served.',
  },
  supportedLanguages: {
    type: 'array',
    items: { type: 'string' },
    description: 'A transcription language this deployment cannot use: the languages it can.',
  },
};

export const problemSchema: JsonSchema = {
  type: 'object',
  description:
    'RFC 9457 problem details with a stable machine-readable `code` (branch on `code`, not on `title` or ' +
    '`detail`). Members beyond the standard ones appear only with the codes they belong to.',
  required: ['type', 'title', 'status', 'code', 'detail', 'requestId'],
  // Every member a problem can carry is declared: the contract tests refuse any other.
  additionalProperties: false,
  properties: {
    type: { type: 'string', description: '`urn:problem-type:<code>`' },
    title: { type: 'string' },
    status: { type: 'integer', description: 'The HTTP status, repeated.' },
    code: { type: 'string', enum: Object.keys(ERROR_CATALOG) },
    detail: { type: 'string', description: 'What happened, for a person.' },
    requestId: { type: 'string', description: 'Also sent as the `x-request-id` header.' },
    ...PROBLEM_EXTENSIONS,
  },
};

const STATUS_TEXT: Record<number, string> = {
  400: 'The request is not valid',
  401: 'No valid credential',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Conflict with the current state',
  412: 'If-Match names another version of the resource',
  413: 'Too large',
  414: 'URL too long',
  415: 'Not JSON',
  422: 'Idempotency key reused with another request',
  429: 'Too many requests or a monthly allowance used up',
  431: 'Request line and headers too large',
  500: 'Internal error; the body carries no internals',
  501: 'Declared, not available yet',
  503: 'Temporarily unavailable',
};

const resourceStatusOf = (code: ErrorCode): Record<string, string> => {
  const carried = (
    RESOURCE_STATUS_MEMBERS as Partial<Record<ErrorCode, { member: string; example: string }>>
  )[code];
  return carried ? { [carried.member]: carried.example } : {};
};

/** One example problem per code an answer can carry, as a client receives it. */
const problemExamples = (status: number, codes: readonly ErrorCode[]) =>
  Object.fromEntries(
    codes.map((code) => [
      code,
      {
        summary: ERROR_CATALOG[code].title,
        value: {
          type: `urn:problem-type:${code}`,
          title: ERROR_CATALOG[code].title,
          status,
          code,
          detail: `${ERROR_CATALOG[code].title}.`,
          requestId: '3f6c2a9e-8d41-4b7a-9c55-1e0f7a2b6d93',
          ...resourceStatusOf(code),
        },
      },
    ]),
  );

/**
 * `gated`: the operation needs a credential, so once the company is known the edge meters its rate and sends
 * the RateLimit fields on every answer but a 401 (where no company is known yet).
 */
export const errorResponse = (status: number, codes: ErrorCode[], gated = false) => ({
  description: `${STATUS_TEXT[status] ?? 'Error'}: ${codes.map((c) => `\`${c}\``).join(', ')}.`,
  headers: {
    'x-request-id': headerRef('RequestId'),
    ...(status === 429 || status === 503 || codes.includes('idempotency_request_in_progress')
      ? { 'Retry-After': headerRef('RetryAfter') }
      : {}),
    ...(status === 401 ? { 'WWW-Authenticate': headerRef('WwwAuthenticate') } : {}),
    ...(status === 429 || (gated && status !== 401) ? RATE_LIMIT_HEADERS : {}),
  },
  content: {
    'application/problem+json': {
      schema: {
        allOf: [
          { $ref: '#/components/schemas/Problem' },
          { type: 'object', properties: { code: { enum: codes } } },
        ],
      },
      examples: problemExamples(status, codes),
    },
  },
});
