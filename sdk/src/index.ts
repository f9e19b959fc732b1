/**
 * The TypeScript SDK of the public REST API v1: a typed client generated from the OpenAPI document at build
 * time, named resource types read out of it, page iterators, retries with idempotency keys and webhook
 * verification. See `README.md`.
 */
export { type ApiClient, type ApiClientOptions, type Credential, createApiClient } from './client.js';
export { ApiError } from './errors.js';
export type { components, operations, paths } from './generated/openapi.js';
export { OPERATIONS } from './generated/operations.js';
export { operationOf } from './operation-index.js';
export type {
  Named,
  OperationId,
  PagedOperationId,
  PageInput,
  PageItem,
  PathParams,
  QueryParams,
  RequestBody,
  Schema,
  Schemas,
  SuccessBody,
} from './operation-types.js';
export { paginate, type Transport } from './paginate.js';
export type * from './resources.js';
export {
  DEFAULT_TIMEOUT_MS,
  type FetchLike,
  RequestTimeoutError,
  type RetryOptions,
  retryAfterMs,
  retryingFetch,
} from './retry.js';
export { USER_AGENT } from './user-agent.js';
export { verifyWebhook, type WebhookHeaders, WebhookVerificationError } from './webhooks.js';
