import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import {
  accessDenied,
  canonicalHeaderValue,
  canonicalPath,
  canonicalQuery,
  lowerCaseHeaders,
  parseQuery,
  S3RequestRefused,
} from './s3-canonical';

export { canonicalPath, S3RequestRefused } from './s3-canonical';

/**
 * Verifies an S3 request's AWS Signature Version 4 the way S3 does, for the local stack's S3 front
 * (`./s3-signature-front`). s3rver checks only a presigned URL's expiry and access key id, so without this a
 * tenant could put another tenant's object path in front of its own URL's query. Two forms are verified:
 *
 * - presigned URLs (`X-Amz-Algorithm`, `X-Amz-Credential`, `X-Amz-Date`, `X-Amz-Expires`,
 *   `X-Amz-SignedHeaders`, `X-Amz-Signature` in the query; payload `UNSIGNED-PAYLOAD`);
 * - header-signed requests (`Authorization: AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…`,
 *   `x-amz-date`, `x-amz-content-sha256`), whose body the caller must hash when a hash is declared.
 *
 * The canonical URI is the decoded path re-encoded segment by segment (S3 does not encode twice), so the
 * signature covers the literal object path; a path with a `.` or `..` segment is refused before anything
 * else. Any `x-amz-*` header the signature does not cover is refused, as S3 does: it could otherwise change
 * what a signed URL does (`x-amz-copy-source` on an upload URL). Refusals are thrown as `S3RequestRefused`
 * with S3's status, code and message. The reference signer of the unit tests is `@smithy/signature-v4`.
 */

export const ALGORITHM = 'AWS4-HMAC-SHA256';
/** SigV4's ceiling for a presigned URL's lifetime. */
export const MAX_PRESIGNED_SECONDS = 604_800;
/** How far a request's time may be from the server's (S3: 15 minutes). */
export const MAX_SKEW_MS = 15 * 60_000;
const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
const SHA256_HEX = /^[0-9a-f]{64}$/i;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;
const PRESIGN_PARAMS = [
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Date',
  'X-Amz-Expires',
  'X-Amz-SignedHeaders',
  'X-Amz-Signature',
] as const;

const queryError = (message: string) =>
  new S3RequestRefused(400, 'AuthorizationQueryParametersError', message);
const headerError = (message: string) =>
  new S3RequestRefused(
    400,
    'AuthorizationHeaderMalformed',
    `The authorization header is malformed; ${message}`,
  );

export interface S3Request {
  method: string;
  /** The request target as received: raw path and query, never normalised. */
  url: string;
  /** Header names in any case; a header received more than once as an array. */
  headers: Record<string, string | string[] | undefined>;
}

export interface VerifierOptions {
  /** The region the credential scope must name. */
  region: string;
  /** The secret access key of an access key id, or undefined for an unknown id. */
  secretFor: (accessKeyId: string) => string | undefined;
  now: Date;
}

export interface VerifiedRequest {
  accessKeyId: string;
  /** The body's SHA-256 (lower-case hex) the signature covers, when the request declared one. */
  payloadSha256?: string;
}

/** Parses `yyyyMMddTHHmmssZ` into a time, or undefined. */
const parseAmzDate = (value: string | undefined): Date | undefined => {
  const m = value === undefined ? null : AMZ_DATE.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  const date = new Date(Date.UTC(y as number, (mo as number) - 1, d, h, mi, s));
  return `${date.toISOString().slice(0, 19).replace(/[-:]/g, '')}Z` === value ? date : undefined;
};

interface Credential {
  accessKeyId: string;
  date: string;
  region: string;
  service: string;
  scope: string;
}

const parseCredential = (value: string): Credential | undefined => {
  const parts = value.split('/');
  if (parts.length !== 5 || parts[4] !== 'aws4_request') return undefined;
  const [accessKeyId, date, region, service] = parts as [string, string, string, string];
  if (accessKeyId === '' || !/^\d{8}$/.test(date)) return undefined;
  return { accessKeyId, date, region, service, scope: parts.slice(1).join('/') };
};

const credentialProblem = (credential: Credential, amzDate: string, region: string): string | undefined => {
  if (credential.date !== amzDate.slice(0, 8))
    return 'Invalid credential date. Date is not the same as X-Amz-Date.';
  if (credential.region !== region)
    return `the region '${credential.region}' is wrong; expecting '${region}'`;
  if (credential.service !== 's3') return `wrong service '${credential.service}'; expecting 's3'`;
  return undefined;
};

const hmac = (key: Buffer | string, data: string): Buffer =>
  createHmac('sha256', key).update(data, 'utf8').digest();
const sha256Hex = (data: string): string => createHash('sha256').update(data, 'utf8').digest('hex');

/** The signature SigV4 gives a canonical request. */
export const sigV4Signature = (
  secret: string,
  amzDate: string,
  credential: Pick<Credential, 'date' | 'region' | 'service' | 'scope'>,
  canonicalRequest: string,
): string => {
  const key = hmac(
    hmac(hmac(hmac(`AWS4${secret}`, credential.date), credential.region), credential.service),
    'aws4_request',
  );
  const stringToSign = [ALGORITHM, amzDate, credential.scope, sha256Hex(canonicalRequest)].join('\n');
  return createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
};

const sameSignature = (expected: string, provided: string): boolean =>
  SHA256_HEX.test(provided) &&
  timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(provided.toLowerCase(), 'hex'));

/** A request as the signature sees it: canonical path, decoded query pairs, lower-case headers. */
interface ParsedRequest {
  method: string;
  path: string;
  query: [string, string][];
  headers: Map<string, string[]>;
}

interface SignedParts extends ParsedRequest {
  signedHeaders: string[];
  payloadHash: string;
}

const canonicalRequest = (p: SignedParts): string =>
  [
    p.method,
    p.path,
    canonicalQuery(p.query),
    ...p.signedHeaders.map((name) => `${name}:${canonicalHeaderValue(p.headers.get(name))}`),
    '',
    p.signedHeaders.join(';'),
    p.payloadHash,
  ].join('\n');

/** The signed-headers list, lower case; it must name `host` and every `x-amz-*` header the request has. */
const checkSignedHeaders = (
  list: string,
  headers: Map<string, string[]>,
  malformed: (m: string) => Error,
) => {
  const signed = list.split(';');
  if (signed.some((name) => name === '' || name !== name.toLowerCase()) || !signed.includes('host'))
    throw malformed('SignedHeaders must be lower case, separated by ";", and include host');
  const unsigned = [...headers.keys()].filter((name) => name.startsWith('x-amz-') && !signed.includes(name));
  if (unsigned.length > 0)
    throw accessDenied('There were headers present in the request which were not signed');
  return [...signed].sort();
};

const keySecret = (accessKeyId: string, options: VerifierOptions): string => {
  const secret = options.secretFor(accessKeyId);
  if (secret === undefined)
    throw new S3RequestRefused(
      403,
      'InvalidAccessKeyId',
      'The AWS Access Key Id you provided does not exist in our records.',
    );
  return secret;
};

const mismatch = () =>
  new S3RequestRefused(
    403,
    'SignatureDoesNotMatch',
    'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
  );

const verifyPresigned = (
  { method, path, query, headers }: ParsedRequest,
  options: VerifierOptions,
): VerifiedRequest => {
  const param = (name: (typeof PRESIGN_PARAMS)[number]): string => {
    const values = query.filter(([key]) => key === name);
    if (values.length !== 1)
      throw queryError(
        'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.',
      );
    return (values[0] as [string, string])[1];
  };
  const [algorithm, credentialValue, amzDate, expiresValue, signedList, signature] = PRESIGN_PARAMS.map(
    param,
  ) as [string, string, string, string, string, string];
  if (algorithm !== ALGORITHM) throw queryError(`X-Amz-Algorithm only supports "${ALGORITHM}"`);
  const signedAt = parseAmzDate(amzDate);
  if (!signedAt) throw queryError(`X-Amz-Date must be in the ISO8601 Long Format "yyyyMMdd'T'HHmmss'Z'"`);
  const credential = parseCredential(credentialValue);
  if (!credential)
    throw queryError(
      'Error parsing the X-Amz-Credential parameter; the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".',
    );
  const problem = credentialProblem(credential, amzDate, options.region);
  if (problem) throw queryError(`Error parsing the X-Amz-Credential parameter; ${problem}`);
  if (!/^\d{1,7}$/.test(expiresValue)) throw queryError('X-Amz-Expires should be a number');
  const expires = Number(expiresValue);
  if (expires > MAX_PRESIGNED_SECONDS)
    throw queryError(
      'X-Amz-Expires must be less than a week (in seconds) that is; the given X-Amz-Expires must be less than 604800 seconds',
    );
  const signedHeaders = checkSignedHeaders(signedList, headers, queryError);
  const secret = keySecret(credential.accessKeyId, options);
  const now = options.now.getTime();
  if (signedAt.getTime() - now > MAX_SKEW_MS) throw accessDenied('Request is not valid yet');
  if (now > signedAt.getTime() + expires * 1000) throw accessDenied('Request has expired');
  const expected = sigV4Signature(
    secret,
    amzDate,
    credential,
    canonicalRequest({
      method,
      path,
      query: query.filter(([key]) => key !== 'X-Amz-Signature'),
      headers,
      signedHeaders,
      payloadHash: UNSIGNED_PAYLOAD,
    }),
  );
  if (!sameSignature(expected, signature)) throw mismatch();
  return { accessKeyId: credential.accessKeyId };
};

const parseAuthorization = (value: string): Map<string, string> => {
  if (!value.startsWith(`${ALGORITHM} `))
    throw new S3RequestRefused(
      400,
      'InvalidRequest',
      'The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.',
    );
  const components = new Map<string, string>();
  for (const component of value.slice(ALGORITHM.length + 1).split(',')) {
    const at = component.indexOf('=');
    const name = component.slice(0, at).trim();
    if (at < 0 || components.has(name))
      throw headerError(`the component "${component.trim()}" is not valid.`);
    components.set(name, component.slice(at + 1).trim());
  }
  for (const name of ['Credential', 'SignedHeaders', 'Signature'])
    if (!components.has(name)) throw headerError(`missing ${name}.`);
  if (components.size !== 3)
    throw headerError(
      'the authorization header requires three components: Credential, SignedHeaders, and Signature.',
    );
  return components;
};

const verifyHeaderSigned = (
  { method, path, query, headers }: ParsedRequest,
  options: VerifierOptions,
): VerifiedRequest => {
  const authorization = headers.get('authorization') ?? [];
  if (authorization.length !== 1) throw headerError('the Authorization header must be sent once.');
  const components = parseAuthorization(authorization[0] as string);
  const credential = parseCredential(components.get('Credential') as string);
  if (!credential)
    throw headerError(
      'the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".',
    );
  const amzDate = canonicalHeaderValue(headers.get('x-amz-date'));
  const signedAt = parseAmzDate(amzDate);
  if (!signedAt) throw accessDenied('AWS authentication requires a valid Date or x-amz-date header');
  const problem = credentialProblem(credential, amzDate, options.region);
  if (problem) throw headerError(problem);
  const payloadHash = canonicalHeaderValue(headers.get('x-amz-content-sha256'));
  if (payloadHash === '')
    throw new S3RequestRefused(
      400,
      'InvalidRequest',
      'Missing required header for this request: x-amz-content-sha256',
    );
  if (payloadHash !== UNSIGNED_PAYLOAD && !SHA256_HEX.test(payloadHash))
    throw new S3RequestRefused(
      400,
      'InvalidArgument',
      'x-amz-content-sha256 must be UNSIGNED-PAYLOAD or a valid sha256 value (chunk-signed payloads are not supported here).',
    );
  const signedHeaders = checkSignedHeaders(components.get('SignedHeaders') as string, headers, headerError);
  const secret = keySecret(credential.accessKeyId, options);
  if (Math.abs(signedAt.getTime() - options.now.getTime()) > MAX_SKEW_MS)
    throw new S3RequestRefused(
      403,
      'RequestTimeTooSkewed',
      'The difference between the request time and the current time is too large.',
    );
  const expected = sigV4Signature(
    secret,
    amzDate,
    credential,
    canonicalRequest({ method, path, query, headers, signedHeaders, payloadHash }),
  );
  if (!sameSignature(expected, components.get('Signature') as string)) throw mismatch();
  return {
    accessKeyId: credential.accessKeyId,
    ...(payloadHash === UNSIGNED_PAYLOAD ? {} : { payloadSha256: payloadHash.toLowerCase() }),
  };
};

/**
 * Verifies one request; throws `S3RequestRefused` with S3's answer when S3 would refuse it. A request with no
 * signature at all is refused (the platform bucket blocks public access).
 */
export const verifyS3Request = (request: S3Request, options: VerifierOptions): VerifiedRequest => {
  const at = request.url.indexOf('?');
  const [rawPath, rawQuery] =
    at < 0 ? [request.url, ''] : [request.url.slice(0, at), request.url.slice(at + 1)];
  const parsed: ParsedRequest = {
    method: request.method,
    path: canonicalPath(rawPath),
    query: parseQuery(rawQuery),
    headers: lowerCaseHeaders(request.headers),
  };
  const { query, headers } = parsed;
  const byHeader = headers.has('authorization');
  const byQuery = query.some(([key]) => (PRESIGN_PARAMS as readonly string[]).includes(key));
  const bySigV2 = query.some(([key]) => key === 'Signature' || key === 'AWSAccessKeyId');
  if (Number(byHeader) + Number(byQuery) + Number(bySigV2) > 1)
    throw new S3RequestRefused(
      400,
      'InvalidArgument',
      'Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified',
    );
  if (bySigV2)
    throw new S3RequestRefused(
      400,
      'InvalidRequest',
      'The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.',
    );
  if (byQuery) return verifyPresigned(parsed, options);
  if (byHeader) return verifyHeaderSigned(parsed, options);
  throw accessDenied();
};
