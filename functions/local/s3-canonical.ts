/**
 * The canonical forms SigV4 signs, as S3 reads a request (`./s3-signature`): the path decoded and re-encoded
 * segment by segment (a `.` or `..` segment refused), the query as sorted encoded pairs, header names in
 * lower case with their values folded; and S3's refusal, with its status, code and message.
 */
export class S3RequestRefused extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'S3RequestRefused';
  }
}

export const accessDenied = (message = 'Access Denied') => new S3RequestRefused(403, 'AccessDenied', message);
/** RFC 3986 encoding as SigV4 wants it: everything but `A-Z a-z 0-9 - _ . ~` as upper-case `%XX`. */
export const uriEncode = (value: string): string =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const decode = (value: string): string => {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new S3RequestRefused(400, 'InvalidURI', "Couldn't parse the specified URI.");
  }
};

/**
 * The canonical URI of a raw path: each segment decoded and encoded again. Refuses a path that is not
 * absolute or whose decoded form has a `.` or `..` segment (encoded dots, slashes and backslashes included).
 */
export const canonicalPath = (rawPath: string): string => {
  if (!rawPath.startsWith('/'))
    throw new S3RequestRefused(400, 'InvalidURI', "Couldn't parse the specified URI.");
  const decoded = rawPath.split('/').map(decode);
  if (
    decoded
      .join('/')
      .split(/[/\\]/)
      .some((segment) => segment === '.' || segment === '..')
  )
    throw accessDenied();
  return decoded.map(uriEncode).join('/');
};

/** Query parameters as decoded pairs, in order (`+` is a space, as S3 reads a query). */
export const parseQuery = (rawQuery: string): [string, string][] =>
  rawQuery
    .split('&')
    .filter((part) => part !== '')
    .map((part) => {
      const at = part.indexOf('=');
      const [key, value] = at < 0 ? [part, ''] : [part.slice(0, at), part.slice(at + 1)];
      return [decode(key.replaceAll('+', ' ')), decode(value.replaceAll('+', ' '))];
    });

export const canonicalQuery = (pairs: [string, string][]): string =>
  pairs
    .map(([key, value]) => [uriEncode(key), uriEncode(value)] as const)
    .sort(([ka, va], [kb, vb]) => (ka < kb ? -1 : ka > kb ? 1 : va < vb ? -1 : va > vb ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`)
    .join('&');

export const lowerCaseHeaders = (
  headers: Record<string, string | string[] | undefined>,
): Map<string, string[]> => {
  const out = new Map<string, string[]>();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    out.set(name.toLowerCase(), [...(out.get(name.toLowerCase()) ?? []), ...values]);
  }
  return out;
};

export const canonicalHeaderValue = (values: string[] | undefined): string =>
  (values ?? []).map((v) => v.trim().replace(/\s+/g, ' ')).join(',');
