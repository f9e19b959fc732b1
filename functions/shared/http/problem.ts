import type { APIGatewayProxyResult } from 'aws-lambda';
import { AppError, ERROR_CATALOG, type ErrorCode, type FieldError } from '../errors';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/**
 * The challenge of every 401 (RFC 9110 §11.6.1, RFC 6750 §3): the API takes a bearer token, and HTTP clients
 * and MCP clients look for this header to learn so. An API key in `x-api-key` is also accepted (see the
 * OpenAPI document's security schemes); no standard scheme names it.
 */
export const WWW_AUTHENTICATE_CHALLENGE = 'Bearer realm="api"';

/** Problem type URIs are stable URNs, one per code, documented in the OpenAPI document. */
export const problemType = (code: ErrorCode): string => `urn:problem-type:${code}`;

export interface Problem {
  type: string;
  title: string;
  status: number;
  code: ErrorCode;
  detail: string;
  requestId: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

export const buildProblem = (error: AppError, requestId: string): Problem => {
  const { status, title } = ERROR_CATALOG[error.code];
  return {
    ...error.extensions,
    type: problemType(error.code),
    title,
    status,
    code: error.code,
    detail: error.message,
    requestId,
    ...(error.errors ? { errors: error.errors } : {}),
  };
};

/**
 * Maps any thrown value to a problem response. Anything that is not an `AppError` becomes a generic 500 whose
 * body carries no internals; the caller logs the original.
 */
export const problemResponse = (error: unknown, requestId: string): APIGatewayProxyResult => {
  const appError =
    error instanceof AppError ? error : new AppError('internal', 'The request could not be completed.');
  const headers: Record<string, string> = {
    'content-type': PROBLEM_CONTENT_TYPE,
    'x-request-id': requestId,
    'cache-control': 'no-store',
  };
  if (appError.retryAfterSeconds !== undefined) headers['retry-after'] = String(appError.retryAfterSeconds);
  if (appError.status === 401) headers['www-authenticate'] = WWW_AUTHENTICATE_CHALLENGE;
  return { statusCode: appError.status, headers, body: JSON.stringify(buildProblem(appError, requestId)) };
};

/** 405 for a method the resource does not have; the answer's `Allow` header lists those it has. */
export const methodNotAllowed = (method: string, allow: readonly string[]): AppError =>
  new AppError(
    'method_not_allowed',
    `${method} is not served here; this resource answers ${allow.join(', ')}.`,
    {
      extensions: { allow: [...allow] },
    },
  );
