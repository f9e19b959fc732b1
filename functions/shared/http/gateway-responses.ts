import { ERROR_CATALOG, type ErrorCode } from '../errors';
import { PROBLEM_CONTENT_TYPE, problemType, WWW_AUTHENTICATE_CHALLENGE } from './problem';

/**
 * Answers API Gateway gives itself (authorizer refusal, unknown route, throttling, integration failure), as
 * problem+json. The CDK API stack installs these as gateway responses and the local gateway answers with the
 * same bodies, so clients see one error model whoever answers.
 *
 * `$context.requestId` is substituted by API Gateway (and by the local gateway).
 */
export type GatewayResponseType =
  | 'UNAUTHORIZED'
  | 'ACCESS_DENIED'
  | 'MISSING_AUTHENTICATION_TOKEN'
  | 'RESOURCE_NOT_FOUND'
  | 'THROTTLED'
  | 'INVALID_API_KEY'
  | 'QUOTA_EXCEEDED'
  | 'AUTHORIZER_FAILURE'
  | 'AUTHORIZER_CONFIGURATION_ERROR'
  | 'REQUEST_TOO_LARGE'
  | 'WAF_FILTERED'
  | 'DEFAULT_4XX'
  | 'DEFAULT_5XX';

interface GatewayResponseDefinition {
  type: GatewayResponseType;
  statusCode: number;
  code: ErrorCode;
  detail: string;
  /** Static headers of this response beside the common ones. */
  headers?: Readonly<Record<string, string>>;
}

export const GATEWAY_RESPONSES: readonly GatewayResponseDefinition[] = [
  {
    type: 'UNAUTHORIZED',
    statusCode: 401,
    code: 'unauthorized',
    detail: 'A valid credential is required.',
    headers: { 'www-authenticate': WWW_AUTHENTICATE_CHALLENGE },
  },
  {
    type: 'ACCESS_DENIED',
    statusCode: 403,
    code: 'forbidden',
    detail: 'The credential may not call this route.',
  },
  // API Gateway reports an unknown path or method as a missing token: to clients it is a 404.
  { type: 'MISSING_AUTHENTICATION_TOKEN', statusCode: 404, code: 'not_found', detail: 'No such route.' },
  { type: 'RESOURCE_NOT_FOUND', statusCode: 404, code: 'not_found', detail: 'No such route.' },
  // The company's request rate (its plan's usage plan) or the stage's: a token is back within a second.
  {
    type: 'THROTTLED',
    statusCode: 429,
    code: 'throttled',
    detail: "Too many requests for the company's request rate; retry later.",
    headers: { 'retry-after': '1' },
  },
  // Every gated method requires the usage key the authorizer returns; a missing or unknown one is a
  // deployment fault, which the caller sees as a refusal, never as a problem with its request.
  {
    type: 'INVALID_API_KEY',
    statusCode: 403,
    code: 'forbidden',
    detail: 'The credential may not call this route.',
  },
  { type: 'QUOTA_EXCEEDED', statusCode: 429, code: 'quota_exceeded', detail: 'Request quota exceeded.' },
  {
    type: 'REQUEST_TOO_LARGE',
    statusCode: 413,
    code: 'payload_too_large',
    detail: 'The request is too large.',
  },
  // AWS WAF refused the request (a managed rule); rate-limited requests get WAF's own 429 instead.
  {
    type: 'WAF_FILTERED',
    statusCode: 403,
    code: 'forbidden',
    detail: 'The request was refused by the web application firewall.',
  },
  {
    type: 'AUTHORIZER_FAILURE',
    statusCode: 500,
    code: 'internal',
    detail: 'The request could not be completed.',
  },
  {
    type: 'AUTHORIZER_CONFIGURATION_ERROR',
    statusCode: 500,
    code: 'internal',
    detail: 'The request could not be completed.',
  },
  { type: 'DEFAULT_4XX', statusCode: 400, code: 'validation_failed', detail: 'The request was refused.' },
  { type: 'DEFAULT_5XX', statusCode: 500, code: 'internal', detail: 'The request could not be completed.' },
];

/** Velocity template of the body: literal JSON plus the request id. */
export const gatewayResponseTemplate = (definition: GatewayResponseDefinition): string =>
  JSON.stringify({
    type: problemType(definition.code),
    title: ERROR_CATALOG[definition.code].title,
    status: definition.statusCode,
    code: definition.code,
    detail: definition.detail,
    requestId: '$context.requestId',
  });

export const GATEWAY_RESPONSE_HEADERS = {
  'content-type': PROBLEM_CONTENT_TYPE,
  'x-request-id': '$context.requestId',
} as const;

export const gatewayResponse = (type: GatewayResponseType): GatewayResponseDefinition => {
  const found = GATEWAY_RESPONSES.find((r) => r.type === type);
  if (!found) throw new Error(`No gateway response ${type}`);
  return found;
};
