/**
 * Which credential a request presents. Precedence: `x-jwt-token`, then `x-api-key`, then `x-auth-token`.
 * The first header present wins and alone decides: an invalid winner is refused, never a fall-through.
 */
export type PresentedCredential =
  | { header: 'x-jwt-token' | 'x-auth-token'; kind: 'jwt'; value: string }
  | { header: 'x-api-key' | 'x-auth-token'; kind: 'api_key'; value: string };

/** Header values longer than this are refused before any parsing. */
export const MAX_CREDENTIAL_LENGTH = 4096;

const headerValue = (headers: Record<string, string | undefined>, name: string): string | undefined => {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name && value !== undefined) return value;
  }
  return undefined;
};

export const presentedCredential = (
  headers: Record<string, string | undefined> | null | undefined,
): PresentedCredential | undefined => {
  const all = headers ?? {};
  const jwt = headerValue(all, 'x-jwt-token');
  if (jwt !== undefined) return { header: 'x-jwt-token', kind: 'jwt', value: jwt.trim() };
  const apiKey = headerValue(all, 'x-api-key');
  if (apiKey !== undefined) return { header: 'x-api-key', kind: 'api_key', value: apiKey.trim() };
  const authToken = headerValue(all, 'x-auth-token');
  if (authToken !== undefined) {
    const value = authToken.trim();
    return value.startsWith('sk-')
      ? { header: 'x-auth-token', kind: 'api_key', value }
      : { header: 'x-auth-token', kind: 'jwt', value };
  }
  return undefined;
};
