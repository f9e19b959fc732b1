import type { LocalAccessLogRecord } from '../shared/http/access-log';

/** The `code` of a problem+json answer, for the local access log. */
export const problemCodeOf = (headers: Record<string, string | string[]>, body: Buffer): string | null => {
  const type = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
  if (typeof type !== 'string' || !type.startsWith('application/problem+json')) return null;
  try {
    const { code } = JSON.parse(body.toString('utf8')) as { code?: unknown };
    return typeof code === 'string' ? code : null;
  } catch {
    return null;
  }
};

/** The access-log line of a request refused before it could be routed. */
export const failedRequestRecord = (
  requestId: string,
  method: string,
  path: string,
  status: number,
  error: string,
  problemCode: string,
): LocalAccessLogRecord => {
  const now = Date.now();
  return {
    requestId,
    time: new Date(now).toISOString(),
    timeEpochMs: now,
    method,
    path: path.slice(0, 2048),
    route: null,
    status,
    latencyMs: 0,
    integrationLatencyMs: null,
    responseLength: 0,
    sourceIp: '',
    userAgent: null,
    companyId: null,
    authMethod: null,
    keyId: null,
    errorMessage: error,
    problemCode,
  };
};
