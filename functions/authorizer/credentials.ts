/**
 * Which credential a request presents. Precedence: `x-jwt-token`, then `x-api-key`, then `x-auth-token`, then
 * (on the resources in `BEARER_RESOURCES` only) `Authorization: Bearer <API key or JWT>`.
 * The first header present wins and alone decides: an invalid winner is refused, never a fall-through.
 */
export type PresentedCredential =
  | { header: 'x-jwt-token' | 'x-auth-token' | 'authorization'; kind: 'jwt'; value: string }
  | { header: 'x-api-key' | 'x-auth-token' | 'authorization'; kind: 'api_key'; value: string };

/**
 * Resources that also take `Authorization: Bearer`, because it is what their clients send: the MCP server
 * (route `POST /v1/mcp`; a test holds this list to the route table).
 */
export const BEARER_RESOURCES: readonly string[] = ['/mcp'];

/** Header values longer than this are refused before any parsing. */
export const MAX_CREDENTIAL_LENGTH = 4096;

const headerValue = (headers: Record<string, string | undefined>, name: string): string | undefined => {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name && value !== undefined) return value;
  }
  return undefined;
};

/** `sk-` → API key, anything else → JWT (the rule of `x-auth-token`). */
const eitherForm = (header: 'x-auth-token' | 'authorization', value: string): PresentedCredential =>
  value.startsWith('sk-') ? { header, kind: 'api_key', value } : { header, kind: 'jwt', value };

export const presentedCredential = (
  headers: Record<string, string | undefined> | null | undefined,
  options: { bearer?: boolean } = {},
): PresentedCredential | undefined => {
  const all = headers ?? {};
  const jwt = headerValue(all, 'x-jwt-token');
  if (jwt !== undefined) return { header: 'x-jwt-token', kind: 'jwt', value: jwt.trim() };
  const apiKey = headerValue(all, 'x-api-key');
  if (apiKey !== undefined) return { header: 'x-api-key', kind: 'api_key', value: apiKey.trim() };
  const authToken = headerValue(all, 'x-auth-token');
  if (authToken !== undefined) return eitherForm('x-auth-token', authToken.trim());
  const authorization = options.bearer ? headerValue(all, 'authorization') : undefined;
  if (authorization === undefined) return undefined;
  // Another scheme (Basic, …) is an invalid winner: an empty value, refused like a missing credential.
  const bearer = /^Bearer[ \t]+(\S.*)$/i.exec(authorization.trim());
  return eitherForm('authorization', bearer?.[1]?.trim() ?? '');
};
