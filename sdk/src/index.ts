/**
 * The TypeScript SDK of the public REST API v1: resource methods (`createClient`) and a path client
 * (`createApiClient`) generated from the OpenAPI document at build time, named resource types read out of it,
 * page iterators, waiters, uploads, retries with idempotency keys and webhook verification. See `README.md`.
 */
export { type ApiClient, type ApiClientOptions, type Credential, createApiClient } from './client.js';
export { ApiError } from './errors.js';
export type { components, operations, paths } from './generated/openapi.js';
export { OPERATIONS } from './generated/operations.js';
export type { ResourceTree } from './generated/resource-tree.js';
export type {
  CallOptions,
  Finished,
  ListMethod,
  Method,
  MethodArgs,
  MethodInput,
  MethodOptions,
  MethodResult,
  OperationError,
  ProblemCode,
  Waiter,
  WaitOptions,
} from './method-types.js';
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
export { type Client, createClient } from './resource-client.js';
export type * from './resources.js';
export {
  DEFAULT_TIMEOUT_MS,
  type FetchLike,
  RequestTimeoutError,
  type RetryOptions,
  retryAfterMs,
  retryingFetch,
} from './retry.js';
export {
  MULTIPART_THRESHOLD_BYTES,
  type StorageUpload,
  type UploadedObject,
  type UploadOptions,
  type UploadSource,
  UploadTransferError,
} from './upload.js';
export { USER_AGENT } from './user-agent.js';
export { WaitTimeoutError } from './waiters.js';
export { verifyWebhook, type WebhookHeaders, WebhookVerificationError } from './webhooks.js';
