import type * as z from './zod';

/**
 * Domain errors and the one catalogue of stable error codes. Handlers and domain code throw `AppError`
 * (or a subclass); `http/problem.ts` maps it to RFC 9457 problem+json once. The OpenAPI document lists every
 * code of this catalogue.
 */
export const ERROR_CATALOG = {
  validation_failed: { status: 400, title: 'Request validation failed' },
  unauthorized: { status: 401, title: 'Authentication required' },
  forbidden: { status: 403, title: 'Forbidden' },
  insufficient_scope: { status: 403, title: 'Credential lacks the required scope' },
  log_entry_writes_not_allowed: { status: 403, title: 'log_entries is read-only' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'Conflict' },
  transcode_job_not_cancelable: { status: 409, title: 'Transcode job is already finished' },
  transcode_job_not_retryable: { status: 409, title: 'Transcode job cannot be retried' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  uri_too_long: { status: 414, title: 'URI too long' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  quota_exceeded: { status: 429, title: 'Quota exceeded' },
  throttled: { status: 429, title: 'Too many requests' },
  request_header_fields_too_large: { status: 431, title: 'Request header fields too large' },
  // A chain of workflow runs calling this API deeper than the hop limit (`workflow-hops.ts`).
  hop_limit_exceeded: { status: 400, title: 'Too many workflow hops' },
  jwt_scopes_require_advanced: { status: 400, title: 'Scopes require advanced mode' },
  jwt_invalid_scopes: { status: 400, title: 'Unknown scope names' },
  invalid_storage_reference: { status: 400, title: 'Invalid storage reference' },
  upload_mismatch: { status: 400, title: 'Uploaded object does not match the reservation' },
  multipart_parts_invalid: { status: 400, title: 'Part list does not match the uploaded parts' },
  multipart_checksum_mismatch: { status: 400, title: 'Composite checksum does not match the parts' },
  storage_limit_reached: { status: 403, title: 'Storage allowance reached' },
  file_in_use: { status: 409, title: 'A job still reads this file' },
  internal: { status: 500, title: 'Internal server error' },
  not_implemented: { status: 501, title: 'Not implemented' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
  // Media transforms
  transcode_quota_exceeded: { status: 429, title: 'Monthly transcode seconds used up' },
  transcode_queue_full: { status: 429, title: 'Too many unfinished transcode jobs' },
  // Speech
  speech_quota_exceeded: { status: 429, title: 'Monthly speech characters used up' },
  speech_job_queue_full: { status: 429, title: 'Too many unfinished speech jobs' },
  speech_job_not_cancelable: { status: 409, title: 'Speech job is already finished' },
  // Transcriptions
  transcription_quota_exceeded: { status: 429, title: 'Monthly transcription seconds used up' },
  transcription_queue_full: { status: 429, title: 'Too many unfinished transcription jobs' },
  // Workflows: the run quota and allowance. What a step or a run ends with is a step outcome
  // (`step-outcomes.ts`), never a problem.
  workflow_quota_exceeded: { status: 429, title: 'Monthly workflow runs used up' },
  workflow_limit_reached: { status: 403, title: 'Workflow allowance reached' },
  workflow_run_not_cancelable: { status: 409, title: 'Workflow run is already finished' },
  // API keys
  api_key_limit_reached: { status: 403, title: 'API key allowance reached' },
  api_key_scopes_exceed_caller: { status: 403, title: 'Key scopes exceed the creating credential' },
  api_key_ips_exceed_caller: { status: 403, title: 'Key addresses exceed the creating credential' },
  // Webhook endpoints
  webhook_endpoint_limit_reached: { status: 403, title: 'Webhook endpoint allowance reached' },
  webhook_endpoint_disabled: { status: 409, title: 'Webhook endpoint is disabled' },
  // Workflows
  workflow_secret_limit_reached: { status: 403, title: 'Workflow secret allowance reached' },
  // Dynadata and messaging.
  builtin_type_read_only: { status: 403, title: 'Built-in Dynadata types cannot be changed' },
  dynadata_type_limit_reached: { status: 403, title: 'Dynadata type allowance reached' },
  dynadata_field_limit_reached: { status: 403, title: 'Too many fields for one Dynadata type' },
  type_change_breaks_items: { status: 409, title: 'Stored items would fail the new schema' },
  type_has_items: { status: 409, title: 'The Dynadata type still has items' },
  type_deleting: { status: 409, title: 'The Dynadata type is being deleted' },
  message_status_regression: { status: 409, title: 'The message is already past that status' },
  message_not_cancelable: { status: 409, title: 'Message is no longer scheduled' },
  send_at_out_of_range: { status: 400, title: 'Send time is in the past or too far ahead' },
  idempotency_key_reused: { status: 422, title: 'Idempotency key reused with a different request' },
  idempotency_request_in_progress: {
    status: 409,
    title: 'A request with this idempotency key is in progress',
  },
  idempotency_key_not_supported: { status: 400, title: 'This operation cannot honour an idempotency key' },
  // Conditional requests
  precondition_failed: { status: 412, title: 'The resource does not match If-Match' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export interface FieldError {
  /** RFC 6901 JSON pointer into the request part named by its first segment (`/body/name`, `/query/limit`). */
  pointer: string;
  message: string;
}

export interface AppErrorOptions {
  errors?: FieldError[];
  /** Seconds, sent as `Retry-After`. */
  retryAfterSeconds?: number;
  /** Extra members of the problem object (for example the current status of a job). */
  extensions?: Record<string, unknown>;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly errors: FieldError[] | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly extensions: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, detail: string, options: AppErrorOptions = {}) {
    super(detail);
    this.name = 'AppError';
    this.code = code;
    this.errors = options.errors;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.extensions = options.extensions;
  }

  get status(): number {
    return ERROR_CATALOG[this.code].status;
  }
}

export class ValidationError extends AppError {
  constructor(errors: FieldError[], detail = 'The request is not valid; see errors for each field.') {
    super('validation_failed', detail, { errors });
    this.name = 'ValidationError';
  }
}

export class NotFoundError extends AppError {
  constructor(detail = 'The requested resource does not exist.') {
    super('not_found', detail);
    this.name = 'NotFoundError';
  }
}

export class InsufficientScopeError extends AppError {
  constructor(scope: string) {
    super('insufficient_scope', `This operation requires the scope ${scope}.`, {
      extensions: { requiredScope: scope },
    });
    this.name = 'InsufficientScopeError';
  }
}

export class NotImplementedError extends AppError {
  constructor(operationId: string) {
    super('not_implemented', `The operation ${operationId} is declared but not available yet.`);
    this.name = 'NotImplementedError';
  }
}

const escapePointer = (segment: PropertyKey): string =>
  String(segment).replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Turns zod issues into JSON-pointer field errors rooted at the request part (`/body`, `/query`, ...). A member
 * a strict object does not declare gets its own pointer (`/body/speed`), not its object's.
 */
export const fieldErrors = (part: string, error: z.ZodError): FieldError[] =>
  error.issues.flatMap((issue) => {
    const pointer = `/${part}${issue.path.map((p) => `/${escapePointer(p)}`).join('')}`;
    if (issue.code === 'unrecognized_keys')
      return issue.keys.map((key) => ({
        pointer: `${pointer}/${escapePointer(key)}`,
        message: 'is not a member this operation declares',
      }));
    return [{ pointer, message: issue.message }];
  });
