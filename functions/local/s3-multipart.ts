import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { type Agent, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { compositeChecksumSha256 } from '../shared/types/checksums';
import { parseQuery, S3RequestRefused } from './s3-canonical';

/**
 * S3's multipart upload for the local S3 front (`./s3-signature-front`), which calls it after verifying the
 * request's signature. s3rver has no ListParts or AbortMultipartUpload, checks neither the ETags nor the
 * sizes of the parts it assembles, and gives the object the MD5 of its whole content; so the front keeps
 * the uploads itself, on disk under its own directory, and answers as S3 does:
 *
 * - `POST ?uploads` (CreateMultipartUpload) keeps the key and content type and answers a new upload id;
 * - `PUT ?partNumber&uploadId` (UploadPart) stores the part (1 to 10,000; a part sent again replaces it) and
 *   answers its MD5 as ETag;
 * - `GET ?uploadId` (ListParts) lists the parts in number order, a page of `max-parts` (at most 1000) after
 *   `part-number-marker`;
 * - `POST ?uploadId` (CompleteMultipartUpload) checks the list (ascending numbers: `InvalidPartOrder`; parts
 *   held with those ETags: `InvalidPart`; every part but the last at least 5 MiB: `EntityTooSmall`), then
 *   PUTs the concatenated parts to s3rver and drops the upload. The object's ETag is S3's
 *   `"<MD5 of the concatenated part MD5s>-<part count>"`, kept as the object's metadata (`ETAG_META`);
 *   the front answers it back as `ETag` (`multipartEtag`);
 * - `DELETE ?uploadId` (AbortMultipartUpload) drops the upload and its parts.
 *
 * An upload id that is not held, or held for another key, is `NoSuchUpload` (404).
 *
 * An upload created with `x-amz-checksum-algorithm: SHA256` has checksums as S3's: each part must come with
 * its `x-amz-checksum-sha256` (the front has already refused a body that does not match it, 400
 * `BadDigest`, so nothing is stored), which the part keeps and ListParts answers; a part with a checksum is
 * refused for an upload without the algorithm, and another algorithm is refused (SHA-256 only here). The
 * completion must name each part's checksum as held (else `InvalidPart`; `InvalidRequest` when one is
 * missing); the object gets the composite checksum (`types/checksums.ts`), kept as its checksum metadata
 * (`CHECKSUM_META`, answered by the front as S3 answers a checksum) and answered with `ChecksumType`
 * `COMPOSITE`.
 */
export const ETAG_META = 'x-amz-meta-local-multipart-etag';
/** The metadata where the front keeps an object's SHA-256 checksum (s3rver keeps none). */
export const CHECKSUM_META = 'x-amz-meta-local-checksum-sha256';
const CHECKSUM_HEADER = 'x-amz-checksum-sha256';
const MIN_PART_BYTES = 5 * 1024 ** 2;
const MAX_PART_NUMBER = 10_000;
const MAX_LISTED_PARTS = 1000;
const XMLNS = 'http://s3.amazonaws.com/doc/2006-03-01/';

interface Upload {
  bucket: string;
  key: string;
  contentType: string;
  checksumAlgorithm?: 'SHA256';
}
interface StoredPart {
  partNumber: number;
  etag: string;
  size: number;
  lastModified: string;
  checksumSha256?: string;
}

export interface MultipartStore {
  /** The directory holding one directory per unfinished upload. */
  directory: string;
  /** s3rver's endpoint, where completed objects are written. */
  upstream: URL;
  agent: Agent;
}

const escapeXml = (value: string): string => value.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
const unescapeXml = (value: string): string =>
  value
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/&amp;/g, '&');

const noSuchUpload = () =>
  new S3RequestRefused(
    404,
    'NoSuchUpload',
    'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.',
  );
const invalidPart = () =>
  new S3RequestRefused(
    400,
    'InvalidPart',
    "One or more of the specified parts could not be found. The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
  );

const invalidRequest = (message: string) => new S3RequestRefused(400, 'InvalidRequest', message);

const sendXml = (res: ServerResponse, body: string): void => {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n${body}`;
  res.writeHead(200, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(xml) });
  res.end(xml);
};

/** What a multipart request is, from its method and query, or undefined for any other request. */
export const multipartAction = (method: string, url: string) => {
  const at = url.indexOf('?');
  if (at < 0) return undefined;
  const query = new Map(parseQuery(url.slice(at + 1)));
  const path = url.slice(0, at).split('/').map(decodeURIComponent);
  const [, bucket, ...rest] = path;
  if (bucket === undefined || bucket === '' || rest.length === 0) return undefined;
  const key = rest.join('/');
  const uploadId = query.get('uploadId');
  if (method === 'POST' && query.has('uploads')) return { kind: 'create' as const, bucket, key };
  if (uploadId === undefined) return undefined;
  const target = { bucket, key, uploadId };
  if (method === 'PUT' && !query.has('x-amz-copy-source'))
    return { kind: 'part' as const, ...target, partNumber: query.get('partNumber') ?? '' };
  if (method === 'GET')
    return {
      kind: 'list' as const,
      ...target,
      marker: Number(query.get('part-number-marker') ?? '0'),
      maxParts: Math.min(MAX_LISTED_PARTS, Number(query.get('max-parts') ?? MAX_LISTED_PARTS)),
    };
  if (method === 'POST') return { kind: 'complete' as const, ...target };
  if (method === 'DELETE') return { kind: 'abort' as const, ...target };
  return undefined;
};
type Action = NonNullable<ReturnType<typeof multipartAction>>;

const uploadDir = (store: MultipartStore, uploadId: string): string => {
  if (!/^[0-9a-f]{32}$/.test(uploadId)) throw noSuchUpload();
  return join(store.directory, uploadId);
};

const readUpload = async (
  store: MultipartStore,
  target: { bucket: string; key: string; uploadId: string },
) => {
  const dir = uploadDir(store, target.uploadId);
  const upload = await readFile(join(dir, 'upload.json'), 'utf8').then(
    (text) => JSON.parse(text) as Upload,
    () => undefined,
  );
  if (upload?.bucket !== target.bucket || upload.key !== target.key) throw noSuchUpload();
  return { dir, upload };
};

const heldParts = async (dir: string): Promise<StoredPart[]> => {
  const names = (await readdir(dir)).filter((name) => /^\d+\.json$/.test(name));
  const parts = await Promise.all(
    names.map(async (name) => JSON.parse(await readFile(join(dir, name), 'utf8')) as StoredPart),
  );
  return parts.sort((a, b) => a.partNumber - b.partNumber);
};

const bodyText = async (body: Buffer | Readable): Promise<string> => {
  if (Buffer.isBuffer(body)) return body.toString('utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

const create = async (store: MultipartStore, req: IncomingMessage, res: ServerResponse, action: Action) => {
  const algorithm = req.headers['x-amz-checksum-algorithm']?.toString().toUpperCase();
  if (algorithm !== undefined && algorithm !== 'SHA256')
    throw invalidRequest(`Checksum algorithm ${algorithm} is not supported by the local S3 (SHA256 only).`);
  const uploadId = randomBytes(16).toString('hex');
  const dir = join(store.directory, uploadId);
  await mkdir(dir, { recursive: true });
  const upload: Upload = {
    bucket: action.bucket,
    key: action.key,
    contentType: req.headers['content-type'] ?? 'application/octet-stream',
    ...(algorithm === undefined ? {} : { checksumAlgorithm: algorithm }),
  };
  await writeFile(join(dir, 'upload.json'), JSON.stringify(upload));
  sendXml(
    res,
    `<InitiateMultipartUploadResult xmlns="${XMLNS}"><Bucket>${escapeXml(action.bucket)}</Bucket>` +
      `<Key>${escapeXml(action.key)}</Key><UploadId>${uploadId}</UploadId></InitiateMultipartUploadResult>`,
  );
};

const putPart = async (
  store: MultipartStore,
  req: IncomingMessage,
  body: Buffer | Readable,
  res: ServerResponse,
  action: Extract<Action, { kind: 'part' }>,
) => {
  const partNumber = Number(action.partNumber);
  if (!/^\d{1,5}$/.test(action.partNumber) || partNumber < 1 || partNumber > MAX_PART_NUMBER)
    throw new S3RequestRefused(
      400,
      'InvalidArgument',
      'Part number must be an integer between 1 and 10000, inclusive',
    );
  const { dir, upload } = await readUpload(store, action);
  // The front checked the body against the checksum header before calling here.
  const checksum = req.headers[CHECKSUM_HEADER]?.toString();
  if (upload.checksumAlgorithm !== undefined && checksum === undefined)
    throw invalidRequest(
      'The upload was created using a sha256 checksum; every part must carry x-amz-checksum-sha256.',
    );
  if (upload.checksumAlgorithm === undefined && checksum !== undefined)
    throw invalidRequest(
      'Checksum Type mismatch occurred, expected checksum Type: null, actual checksum Type: sha256',
    );
  const md5 = createHash('md5');
  let size = 0;
  const counted = new PassThrough();
  counted.on('data', (chunk: Buffer) => {
    md5.update(chunk);
    size += chunk.length;
  });
  const file = join(dir, String(partNumber));
  await pipeline(Buffer.isBuffer(body) ? PassThrough.from([body]) : body, counted, createWriteStream(file));
  const etag = md5.digest('hex');
  const part: StoredPart = {
    partNumber,
    etag,
    size,
    lastModified: new Date().toISOString(),
    ...(checksum === undefined ? {} : { checksumSha256: checksum }),
  };
  await writeFile(`${file}.json`, JSON.stringify(part));
  res.writeHead(200, {
    etag: `"${etag}"`,
    'content-length': 0,
    ...(checksum === undefined ? {} : { [CHECKSUM_HEADER]: checksum }),
  });
  res.end();
};

const listParts = async (
  store: MultipartStore,
  res: ServerResponse,
  action: Extract<Action, { kind: 'list' }>,
) => {
  const { dir } = await readUpload(store, action);
  const after = (await heldParts(dir)).filter((part) => part.partNumber > action.marker);
  const page = after.slice(0, action.maxParts);
  const truncated = after.length > page.length;
  const next = page.at(-1)?.partNumber ?? action.marker;
  sendXml(
    res,
    `<ListPartsResult xmlns="${XMLNS}"><Bucket>${escapeXml(action.bucket)}</Bucket>` +
      `<Key>${escapeXml(action.key)}</Key><UploadId>${action.uploadId}</UploadId>` +
      `<PartNumberMarker>${action.marker}</PartNumberMarker><NextPartNumberMarker>${next}</NextPartNumberMarker>` +
      `<MaxParts>${action.maxParts}</MaxParts><IsTruncated>${truncated}</IsTruncated>` +
      page
        .map(
          (part) =>
            `<Part><PartNumber>${part.partNumber}</PartNumber><LastModified>${part.lastModified}</LastModified>` +
            `<ETag>&quot;${part.etag}&quot;</ETag><Size>${part.size}</Size>` +
            (part.checksumSha256 === undefined
              ? ''
              : `<ChecksumSHA256>${part.checksumSha256}</ChecksumSHA256>`) +
            '</Part>',
        )
        .join('') +
      '</ListPartsResult>',
  );
};

/** The part list of a CompleteMultipartUpload body, in the order given. */
const requestedParts = (xml: string): { partNumber: number; etag: string; checksumSha256?: string }[] => {
  const parts = [...xml.matchAll(/<Part>([\s\S]*?)<\/Part>/g)].map(([, inner = '']) => {
    const checksum = /<ChecksumSHA256>([\s\S]*?)<\/ChecksumSHA256>/.exec(inner)?.[1];
    return {
      partNumber: Number(/<PartNumber>\s*(\d+)\s*<\/PartNumber>/.exec(inner)?.[1] ?? Number.NaN),
      etag: unescapeXml(/<ETag>([\s\S]*?)<\/ETag>/.exec(inner)?.[1] ?? '').replaceAll('"', ''),
      ...(checksum === undefined ? {} : { checksumSha256: unescapeXml(checksum).trim() }),
    };
  });
  if (parts.length === 0 || parts.some((part) => !Number.isInteger(part.partNumber)))
    throw new S3RequestRefused(
      400,
      'MalformedXML',
      'The XML you provided was not well-formed or did not validate against our published schema',
    );
  return parts;
};

/** PUTs the concatenated parts to s3rver as the object, with its multipart ETag (and checksum) as metadata. */
const writeObject = (
  store: MultipartStore,
  upload: Upload,
  files: string[],
  size: number,
  meta: { etag: string; checksumSha256?: string | undefined },
): Promise<void> =>
  new Promise((resolve, reject) => {
    const path = `/${[upload.bucket, ...upload.key.split('/')].map(encodeURIComponent).join('/')}`;
    const out = httpRequest(
      {
        host: store.upstream.hostname,
        port: store.upstream.port,
        method: 'PUT',
        path,
        headers: {
          'content-type': upload.contentType,
          'content-length': size,
          [ETAG_META]: meta.etag,
          ...(meta.checksumSha256 === undefined ? {} : { [CHECKSUM_META]: meta.checksumSha256 }),
        },
        agent: store.agent,
      },
      (answer) => {
        answer.resume();
        if (answer.statusCode === 200) resolve();
        else reject(new Error(`s3rver answered ${answer.statusCode} to the assembled object`));
      },
    );
    out.on('error', reject);
    (async () => {
      for (const file of files)
        for await (const chunk of createReadStream(file)) if (!out.write(chunk)) await once(out, 'drain');
      out.end();
    })().catch(reject);
  });

const complete = async (
  store: MultipartStore,
  body: Buffer | Readable,
  res: ServerResponse,
  action: Extract<Action, { kind: 'complete' }>,
) => {
  const { dir, upload } = await readUpload(store, action);
  const requested = requestedParts(await bodyText(body));
  if (requested.some((part, i) => i > 0 && part.partNumber <= (requested[i - 1]?.partNumber ?? 0)))
    throw new S3RequestRefused(
      400,
      'InvalidPartOrder',
      'The list of parts was not in ascending order. The parts list must be specified in order by part number.',
    );
  const held = new Map((await heldParts(dir)).map((part) => [part.partNumber, part]));
  const parts = requested.map((wanted) => {
    const part = held.get(wanted.partNumber);
    if (part?.etag !== wanted.etag) throw invalidPart();
    if (upload.checksumAlgorithm !== undefined && wanted.checksumSha256 === undefined)
      throw invalidRequest(
        'The upload was created using a sha256 checksum. The complete request must include the checksum for ' +
          `each part. It was missing for part ${wanted.partNumber} in the request.`,
      );
    if (wanted.checksumSha256 !== undefined && wanted.checksumSha256 !== part.checksumSha256)
      throw invalidPart();
    return part;
  });
  if (parts.slice(0, -1).some((part) => part.size < MIN_PART_BYTES))
    throw new S3RequestRefused(
      400,
      'EntityTooSmall',
      'Your proposed upload is smaller than the minimum allowed object size.',
    );
  const digests = Buffer.concat(parts.map((part) => Buffer.from(part.etag, 'hex')));
  const etag = `${createHash('md5').update(digests).digest('hex')}-${parts.length}`;
  const files = parts.map((part) => join(dir, String(part.partNumber)));
  await Promise.all(files.map((file) => stat(file)));
  const checksum =
    upload.checksumAlgorithm === undefined
      ? undefined
      : compositeChecksumSha256(parts.map((part) => part.checksumSha256 ?? ''));
  await writeObject(
    store,
    upload,
    files,
    parts.reduce((sum, part) => sum + part.size, 0),
    { etag, checksumSha256: checksum },
  );
  await rm(dir, { recursive: true, force: true });
  sendXml(
    res,
    `<CompleteMultipartUploadResult xmlns="${XMLNS}"><Location>${escapeXml(`${store.upstream.origin}/${upload.bucket}/${upload.key}`)}</Location>` +
      `<Bucket>${escapeXml(upload.bucket)}</Bucket><Key>${escapeXml(upload.key)}</Key>` +
      `<ETag>&quot;${etag}&quot;</ETag>` +
      (checksum === undefined
        ? ''
        : `<ChecksumSHA256>${checksum}</ChecksumSHA256><ChecksumType>COMPOSITE</ChecksumType>`) +
      '</CompleteMultipartUploadResult>',
  );
};

const abort = async (
  store: MultipartStore,
  res: ServerResponse,
  action: Extract<Action, { kind: 'abort' }>,
) => {
  const { dir } = await readUpload(store, action);
  await rm(dir, { recursive: true, force: true });
  res.writeHead(204).end();
};

/** Answers one multipart request (`multipartAction`); `body` is the request's read body or the request itself. */
export const handleMultipart = async (
  store: MultipartStore,
  req: IncomingMessage,
  res: ServerResponse,
  action: Action,
  body: Buffer | Readable,
): Promise<void> => {
  switch (action.kind) {
    case 'create':
      await bodyText(body);
      return create(store, req, res, action);
    case 'part':
      return putPart(store, req, body, res, action);
    case 'list':
      await bodyText(body);
      return listParts(store, res, action);
    case 'complete':
      return complete(store, body, res, action);
    case 'abort':
      await bodyText(body);
      return abort(store, res, action);
  }
};

/** The ETag S3 gives an object a multipart upload assembled, from the metadata `complete` wrote. */
export const multipartEtag = (headers: Record<string, string | string[] | undefined>) => {
  const { [ETAG_META]: etag, ...rest } = headers;
  return typeof etag === 'string' ? { ...rest, etag: `"${etag}"` } : rest;
};
