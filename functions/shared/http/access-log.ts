/**
 * Fields of the gateway's JSON access log, one line per request. The CDK API stack writes them with API
 * Gateway `$context` variables; the local gateway writes the same names. The log shipper reads these lines.
 * Never a credential: only the authorizer's companyId, auth method and key id.
 */
export const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  time: '$context.requestTime',
  timeEpochMs: '$context.requestTimeEpoch',
  method: '$context.httpMethod',
  path: '$context.path',
  route: '$context.resourcePath',
  status: '$context.status',
  latencyMs: '$context.responseLatency',
  integrationLatencyMs: '$context.integrationLatency',
  responseLength: '$context.responseLength',
  sourceIp: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  companyId: '$context.authorizer.companyId',
  authMethod: '$context.authorizer.authMethod',
  keyId: '$context.authorizer.keyId',
  errorMessage: '$context.error.message',
} as const;

export type AccessLogRecord = { [K in keyof typeof ACCESS_LOG_FIELDS]: string | number | null };

/**
 * What the local gateway writes: the same fields, plus the `code` of a problem+json answer (API Gateway's
 * access log cannot see response bodies), which lets the integration run check that every declared code
 * was answered at least once.
 */
export type LocalAccessLogRecord = AccessLogRecord & { problemCode: string | null };
