import { CREDENTIAL_HEADERS } from '../shared/types/credential-headers';

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

/**
 * The credential header a request presents ambiguously, or undefined. A header is ambiguous when it comes
 * more than once in any spelling (`x-api-key` twice, or `X-Api-Key` and `x-api-key`: API Gateway keeps each
 * line in `multiValueHeaders`, and `headers` keeps one spelling per key) or when one value joins several
 * with a comma (as proxies fold repeated lines; no API key or JWT contains a comma; `Authorization` is only
 * counted, its schemes may hold commas). Such a request is
 * refused, never resolved by position.
 */
export const ambiguousCredentialHeader = (
  headers: Record<string, string | undefined> | null | undefined,
  multiValueHeaders: Record<string, string[] | undefined> | null | undefined,
): string | undefined => {
  for (const name of CREDENTIAL_HEADERS) {
    const values: string[] = [];
    for (const [key, list] of Object.entries(multiValueHeaders ?? {}))
      if (key.toLowerCase() === name) values.push(...(list ?? []));
    const single = Object.entries(headers ?? {}).filter(
      ([key, v]) => key.toLowerCase() === name && v !== undefined,
    );
    if (values.length > 1 || single.length > 1) return name;
    if (name === 'authorization') continue; // its schemes may hold commas (RFC 9110 auth-params)
    if ([...values, ...single.map(([, v]) => v as string)].some((v) => v.includes(','))) return name;
  }
  return undefined;
};
