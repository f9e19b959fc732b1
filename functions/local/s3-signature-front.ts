import { createHash, randomBytes } from 'node:crypto';
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { checksumTypeOf } from '../shared/types/checksums';
import type { RunningService } from './dynamodb-local';
import {
  CHECKSUM_META,
  ETAG_META,
  handleMultipart,
  type MultipartStore,
  multipartAction,
  multipartEtag,
} from './s3-multipart';
import { canonicalPath, S3RequestRefused, type VerifierOptions, verifyS3Request } from './s3-signature';

/**
 * The local S3 endpoint: a reverse proxy on loopback in front of s3rver that lets through only what S3 would
 * (`./s3-signature`). s3rver accepts any SigV4 signature from a known access key id, so every request, from
 * the runtime's S3 client as from a presigned URL, comes here first; refusals are S3's XML errors. CORS
 * preflights carry no signature on S3 either and go through once their path is checked. A declared body hash
 * is checked before anything reaches s3rver, so a body that does not match is never stored.
 *
 * A PUT with `x-amz-checksum-sha256` (a presigned upload signed for a checksum) is checked as S3 checks it:
 * a body whose SHA-256 differs is refused with 400 `BadDigest` and never stored. s3rver keeps no checksums,
 * so the front keeps it as the object's metadata (`CHECKSUM_META`) and answers it back as S3 does, as
 * `x-amz-checksum-sha256` (with `x-amz-checksum-type`) to a HEAD or GET that asks for checksums
 * (`x-amz-checksum-mode: ENABLED`). A part of a multipart upload is checked the same way before it is kept.
 *
 * Multipart uploads (create, upload part, list parts, complete, abort) are the front's own, after the same
 * signature check (`./s3-multipart`): s3rver lacks some and assembles parts unlike S3.
 */
export interface S3FrontOptions extends Omit<VerifierOptions, 'now'> {
  /** s3rver's own endpoint (`http://127.0.0.1:<port>`), reached only through this front. */
  upstream: string;
  /** Where the front keeps unfinished multipart uploads (`./s3-multipart`). */
  multipartDirectory: string;
}

const CHECKSUM_HEADER = 'x-amz-checksum-sha256';

const escapeXml = (value: string): string => value.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

const refuse = (req: IncomingMessage, res: ServerResponse, refusal: S3RequestRefused): void => {
  const requestId = randomBytes(8).toString('hex').toUpperCase();
  const body =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${refusal.code}</Code><Message>${escapeXml(refusal.message)}</Message>` +
    `<RequestId>${requestId}</RequestId></Error>`;
  req.resume();
  res.writeHead(refusal.status, {
    'content-type': 'application/xml',
    'content-length': Buffer.byteLength(body),
    'x-amz-request-id': requestId,
  });
  res.end(req.method === 'HEAD' ? undefined : body);
};

const readBody = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

/**
 * One connection to s3rver per request, ended with its answer: an upstream request whose client went away or
 * whose answer came before its body was read (s3rver refusing early) never stays open holding unwritten
 * bytes, so the front and s3rver always stop.
 */
const upstreamAgent = new Agent({ keepAlive: false });

const forward = (req: IncomingMessage, res: ServerResponse, upstream: URL, body?: Buffer): void => {
  const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: upstream.host };
  if (body) headers['content-length'] = String(body.length);
  delete headers[CHECKSUM_META];
  delete headers[ETAG_META];
  const checksum = req.headers[CHECKSUM_HEADER];
  if (req.method === 'PUT' && typeof checksum === 'string') headers[CHECKSUM_META] = checksum;
  const withChecksum = req.headers['x-amz-checksum-mode']?.toString().toUpperCase() === 'ENABLED';
  const out = httpRequest(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers,
      agent: upstreamAgent,
    },
    (answer) => {
      const { [CHECKSUM_META]: stored, ...answered } = multipartEtag(answer.headers);
      if (withChecksum && typeof stored === 'string') {
        answered[CHECKSUM_HEADER] = stored;
        answered['x-amz-checksum-type'] = checksumTypeOf(stored);
      }
      res.writeHead(answer.statusCode ?? 502, answered);
      answer.pipe(res);
    },
  );
  out.on('error', () => {
    if (res.headersSent) res.destroy();
    else res.writeHead(502).end();
  });
  res.on('close', () => {
    if (!out.destroyed) out.destroy();
  });
  if (body) out.end(body);
  else req.pipe(out);
};

const handle = async (
  req: IncomingMessage,
  res: ServerResponse,
  options: S3FrontOptions,
  multipart: MultipartStore,
): Promise<void> => {
  const { upstream } = multipart;
  const url = req.url ?? '/';
  if (req.method === 'OPTIONS') {
    canonicalPath(url.split('?')[0] as string);
    forward(req, res, upstream);
    return;
  }
  const { payloadSha256 } = verifyS3Request(
    { method: req.method ?? 'GET', url, headers: req.headersDistinct },
    { region: options.region, secretFor: options.secretFor, now: new Date() },
  );
  const checksum = req.method === 'PUT' ? req.headers[CHECKSUM_HEADER] : undefined;
  const multipartRequest = multipartAction(req.method ?? 'GET', url);
  if (payloadSha256 === undefined && checksum === undefined) {
    if (multipartRequest) await handleMultipart(multipart, req, res, multipartRequest, req);
    else forward(req, res, upstream);
    return;
  }
  const body = await readBody(req);
  if (payloadSha256 !== undefined && createHash('sha256').update(body).digest('hex') !== payloadSha256)
    throw new S3RequestRefused(
      400,
      'XAmzContentSHA256Mismatch',
      "The provided 'x-amz-content-sha256' header does not match what was computed.",
    );
  if (checksum !== undefined && createHash('sha256').update(body).digest('base64') !== checksum)
    throw new S3RequestRefused(
      400,
      'BadDigest',
      'The SHA256 you specified did not match the calculated checksum.',
    );
  if (multipartRequest) await handleMultipart(multipart, req, res, multipartRequest, body);
  else forward(req, res, upstream, body);
};

/** Starts the front on 127.0.0.1, on a port chosen at run time. */
export const startS3SignatureFront = async (options: S3FrontOptions): Promise<RunningService> => {
  const multipart: MultipartStore = {
    directory: options.multipartDirectory,
    upstream: new URL(options.upstream),
    agent: upstreamAgent,
  };
  const server = createServer((req, res) => {
    handle(req, res, options, multipart).catch((error: unknown) => {
      if (error instanceof S3RequestRefused) refuse(req, res, error);
      else if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};
