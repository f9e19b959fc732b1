import {
  DEFAULT_FILE_PAGE,
  DEFAULT_PART_BYTES,
  FULL_PATH_PATTERN,
  MAX_BUCKET_NAME_LENGTH,
  MAX_DOWNLOAD_URL_SECONDS,
  MAX_FILE_PAGE,
  MAX_FULL_PATH_BYTES,
  MAX_MULTIPART_UPLOAD_BYTES,
  MAX_PART_BYTES,
  MAX_PART_URLS,
  MAX_PARTS,
  MAX_SINGLE_UPLOAD_BYTES,
  MIN_PART_BYTES,
} from '../domain/storage-limits';
import { timestampField } from '../fields';
import { lazy } from '../lazy';
import * as z from '../zod';
import { nextCursorSchema, pageQuery } from './schemas';

/** Request and response shapes of the storage routes (they become the OpenAPI document). */

const MEDIA_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;

const bucketField = /* @__PURE__ */ lazy(() =>
  z
    .string()
    .max(MAX_BUCKET_NAME_LENGTH)
    .optional()
    .describe('The platform bucket (`bucket` of an upload answer). Absent means the platform bucket.'),
);
/** Base64 of a SHA-256 digest, as S3's `x-amz-checksum-sha256`: 43 characters and one `=`. */
const SHA256_BASE64 = '[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=';
/** A composite checksum's suffix: `-<part count>` (1 to 10,000 parts). */
const PART_COUNT_SUFFIX = `-[1-9][0-9]{0,4}`;

const checksumField = /* @__PURE__ */ lazy(() =>
  z
    .string()
    .length(44)
    .regex(new RegExp(`^${SHA256_BASE64}$`), 'checksumSha256 must be the base64 of a SHA-256 digest')
    .describe("Base64 SHA-256 of the content (as S3's `x-amz-checksum-sha256`)."),
);

/** The composite checksum of a multipart upload: base64 SHA-256 of the parts' digests, `-`, the part count. */
const compositeChecksumField = /* @__PURE__ */ lazy(() =>
  z
    .string()
    .max(50)
    .regex(
      new RegExp(`^${SHA256_BASE64}${PART_COUNT_SUFFIX}$`),
      'checksumSha256 must be a composite checksum: the base64 of a SHA-256 digest, `-`, the part count',
    )
    .describe(
      'Composite checksum (as S3 answers it): base64 SHA-256 of the concatenated binary SHA-256 digests of the ' +
        'parts, in part order, then `-<partCount>`.',
    ),
);

/** The checksum algorithm of a multipart upload's parts (S3 `ChecksumAlgorithm`): SHA-256 only. */
const checksumAlgorithmField = /* @__PURE__ */ lazy(() => z.enum(['SHA256']));

/** The document states the path rules the storage-reference validator enforces (it answers 400 or 404). */
export const fullPathDocumentation = { pattern: FULL_PATH_PATTERN, maxLength: MAX_FULL_PATH_BYTES };

const fullPathField = /* @__PURE__ */ lazy(() =>
  z
    .string()
    .meta(fullPathDocumentation)
    .describe(
      'Object path, always under `companies/<companyId>/`, as answered by the upload routes. At most 1024 bytes; ' +
        'segments of letters, digits and `. _ - ~ + = @ , ( )` between single slashes.',
    ),
);

/** The fields a single and a multipart upload both declare: the file's name, type and size. */
const declaredFileFields = (maxSize: number) => ({
  fileName: z
    .string()
    .min(1)
    .max(255)
    .describe(
      'Original file name. Sanitised into the stored path: directories dropped, accents removed, other ' +
        'characters outside `A-Z a-z 0-9 . _ -` replaced by `-`.',
    ),
  contentType: z
    .string()
    .max(255)
    .regex(MEDIA_TYPE, 'contentType must be a media type such as image/png (type/subtype, no parameters)')
    .transform((value) => value.toLowerCase())
    .describe('Media type of the file (`type/subtype`), sent again as `Content-Type` on upload.'),
  size: z
    .number()
    .int()
    .min(0)
    .max(maxSize)
    .describe("Exact size in bytes; at most the plan's `maxObjectBytes` (413 `payload_too_large` above)."),
});

export const uploadUrlBodySchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      ...declaredFileFields(MAX_SINGLE_UPLOAD_BYTES),
      checksumSha256: checksumField()
        .optional()
        .describe(
          'Base64 SHA-256 of the content (as `x-amz-checksum-sha256`). When given, the upload URL is signed ' +
            'for it: send it as the `x-amz-checksum-sha256` header (it is in `headers`), and storage refuses ' +
            'any other content with 400 `BadDigest`. The stored object answers it.',
        ),
    })
    .strict()
    .describe('A file to upload.'),
);

export const uploadUrlResponseSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      uploadUrl: z.url().describe('Presigned URL; send the file bytes to it with `method` and `headers`.'),
      method: z.literal('PUT'),
      headers: z
        .record(z.string(), z.string())
        .describe(
          'Headers to send with the upload, exactly (`Content-Type`, `Content-Length`, and ' +
            '`x-amz-checksum-sha256` when a checksum was given). They are signed: a different type, length or ' +
            'content is refused by storage. Browsers set `Content-Length` themselves.',
        ),
      bucket: z.string().describe('The platform bucket.'),
      fullPath: z.string().describe('Path of the object once uploaded; pass it to upload-complete.'),
      expiresAt: timestampField().describe('The upload URL stops working at this time (15 minutes).'),
    })
    .describe('A reserved upload: step 2 is `POST /v1/storage/upload-complete` with `{bucket, fullPath}`.'),
);

export const storageReferenceBodySchema = /* @__PURE__ */ lazy(() =>
  z
    .object({ bucket: bucketField(), fullPath: fullPathField() })
    .strict()
    .describe('A storage reference `{bucket, fullPath}`.'),
);

export const storedObjectResponseSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      bucket: z.string().describe('The platform bucket.'),
      fullPath: z.string().describe('Path of the stored object.'),
      size: z.number().int().nonnegative().describe('Size in bytes, counted in the storage usage figure.'),
      contentType: z.string().describe('Media type of the object.'),
      checksumSha256: z
        .string()
        .max(50)
        .regex(new RegExp(`^${SHA256_BASE64}(${PART_COUNT_SUFFIX})?$`))
        .optional()
        .describe(
          'The checksum storage checked, when the upload had one: the base64 SHA-256 of the content ' +
            "(`checksumType` `FULL_OBJECT`, a single upload), or the composite of the parts' checksums " +
            '(`COMPOSITE`, a multipart upload: base64 SHA-256 of the concatenated binary SHA-256 digests of ' +
            'the parts, then `-<partCount>`).',
        ),
      checksumType: z
        .enum(['FULL_OBJECT', 'COMPOSITE'])
        .optional()
        .describe('What `checksumSha256` is a checksum of (present with it).'),
    })
    .describe('A stored object: `{bucket, fullPath}` is its storage reference.'),
);

export const listFilesQuerySchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      prefix: z
        .string()
        .max(MAX_FULL_PATH_BYTES)
        .optional()
        .describe(
          'Only files whose `fullPath` starts with this, e.g. `companies/<companyId>/uploads/`. Absent: all of ' +
            "the company's files. A prefix under another company answers 404.",
        ),
      ...pageQuery('Files', MAX_FILE_PAGE, DEFAULT_FILE_PAGE),
    })
    .describe('Which files, and which page.'),
);

export const listFilesResponseSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      files: z.array(
        storedObjectResponseSchema()
          .extend({ createdAt: timestampField().describe('When the object was recorded.') })
          .describe('A stored file.'),
      ),
      nextCursor: nextCursorSchema(),
    })
    .describe('A page of stored files, in `fullPath` order.'),
);

export const storageReferenceQuerySchema = /* @__PURE__ */ lazy(() =>
  z
    .object({ bucket: bucketField(), fullPath: fullPathField() })
    .describe('A storage reference `{bucket, fullPath}` in the query string.'),
);

export const deleteFileResponseSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      deleted: z.literal(true),
      bucket: z.string().describe('The platform bucket.'),
      fullPath: z.string().describe('Path of the deleted object.'),
    })
    .describe('The file is gone and its bytes no longer count in the storage usage.'),
);

export const downloadUrlQuerySchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      bucket: bucketField(),
      fullPath: fullPathField(),
      expiresIn: z
        .string()
        .regex(/^[0-9]{1,7}$/, 'expiresIn must be a whole number of seconds')
        .transform(Number)
        .pipe(z.number().int().min(1).max(MAX_DOWNLOAD_URL_SECONDS))
        .optional()
        .meta({ type: 'integer', minimum: 1, maximum: MAX_DOWNLOAD_URL_SECONDS, default: 3600 })
        .describe(`Seconds the URL stays valid: 1 to ${MAX_DOWNLOAD_URL_SECONDS} (7 days); default 3600.`),
    })
    .describe('The object to download and how long the URL lives.'),
);

export const downloadUrlResponseSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      url: z
        .url()
        .describe('Presigned GET URL of the object; anyone holding it can download until expiresAt.'),
      expiresAt: timestampField().describe('The URL stops working at this time.'),
    })
    .describe('A signed download URL.'),
);

const multipartIdField = /* @__PURE__ */ lazy(() =>
  z
    .string()
    .max(155)
    .regex(/^[0-9a-z]{26}_[A-Za-z0-9._-]{1,128}$/, 'id must be a multipart upload id as answered on creation')
    .describe(
      'Multipart upload id (`id` of the creation answer): `<ulid>_<file name>`, the last two segments of its ' +
        "`fullPath`. It always names a path under the caller's own company.",
    ),
);

export const multipartUploadParamsSchema = /* @__PURE__ */ lazy(() => z.object({ id: multipartIdField() }));

export const multipartUploadBodySchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      ...declaredFileFields(MAX_MULTIPART_UPLOAD_BYTES),
      partSize: z
        .number()
        .int()
        .min(MIN_PART_BYTES)
        .max(MAX_PART_BYTES)
        .optional()
        .describe(
          `Bytes of every part but the last (${MIN_PART_BYTES} to ${MAX_PART_BYTES}; default ${DEFAULT_PART_BYTES}, ` +
            `8 MiB). \`size\` / \`partSize\` may make at most ${MAX_PARTS} parts.`,
        ),
      checksumAlgorithm: checksumAlgorithmField()
        .optional()
        .describe(
          '`SHA256`: every part is checked against its own checksum. The answer then has no part URLs: ' +
            "request each part's URL with its checksum (`POST /v1/storage/multipart-uploads/{id}/part-urls`); " +
            'storage refuses a part whose bytes do not match (400 `BadDigest`), and the completed object ' +
            'answers the composite checksum of the parts (`checksumType` `COMPOSITE`).',
        ),
    })
    .strict()
    .describe('A file to upload in parts.'),
);

/** A presigned URL of one part. */
const partUrlSchema = /* @__PURE__ */ lazy(() =>
  z.object({
    partNumber: z.number().int().min(1).max(MAX_PARTS),
    size: z
      .number()
      .int()
      .describe('Exact bytes of this part, sent as `Content-Length`: the URL is signed for it.'),
    url: z.url().describe('Presigned URL; PUT the part bytes to it with `headers`.'),
    method: z.literal('PUT'),
    headers: z
      .record(z.string(), z.string())
      .describe(
        'Headers to send with the part, exactly (`Content-Length`, and `x-amz-checksum-sha256` for a part ' +
          'with a checksum). They are signed: another length or content is refused by storage. Browsers ' +
          'set `Content-Length` themselves.',
      ),
    expiresAt: timestampField().describe('The URL stops working at this time (1 hour).'),
  }),
);

const multipartUploadSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      id: multipartIdField(),
      uploadId: z.string().describe("Storage's own id of the upload (it is in each part URL)."),
      bucket: z.string().describe('The platform bucket.'),
      fullPath: z.string().describe('Path of the object once completed.'),
      size: z.number().int().describe('Declared size in bytes.'),
      contentType: z.string().describe('Declared media type; the completed object has it.'),
      partSize: z.number().int().describe('Bytes of every part but the last.'),
      partCount: z.number().int().describe('Number of parts: the part numbers are 1 to `partCount`.'),
      expiresAt: timestampField().describe(
        'The upload must be completed by this time (a day after its creation); then it is dropped.',
      ),
      checksumAlgorithm: checksumAlgorithmField()
        .optional()
        .describe('Present when the upload was started with it: every part carries its checksum.'),
      receivedParts: z
        .array(
          z.object({
            partNumber: z.number().int(),
            etag: z.string().describe('The ETag storage answered for the part.'),
            size: z.number().int(),
            checksumSha256: checksumField()
              .optional()
              .describe('The checksum storage checked the part against (uploads with `checksumAlgorithm`).'),
          }),
        )
        .describe('The parts storage holds, in part-number order (empty on creation).'),
      parts: z
        .array(partUrlSchema())
        .describe(
          `URLs for the parts storage does not hold yet, the first ${MAX_PART_URLS} of them; read the upload ` +
            "again for fresh URLs or the next ones. Each PUT answers the part's `ETag` header: keep it for " +
            'the completion. Empty for an upload with `checksumAlgorithm`: its part URLs are requested with ' +
            'their checksums.',
        ),
    })
    .describe(
      'An unfinished multipart upload: PUT each part to its URL, then `POST ' +
        '/v1/storage/multipart-uploads/{id}/complete` with every part number and ETag.',
    ),
);

/** One multipart upload, in its envelope (docs/openapi.md, Conventions, rule 3). */
export const multipartUploadResponseSchema = /* @__PURE__ */ lazy(() =>
  z.object({ upload: multipartUploadSchema() }),
);

/** A part number of the upload, and its checksum when the upload has `checksumAlgorithm`. */
const partChecksumFields = () => ({
  partNumber: z.number().int().min(1).max(MAX_PARTS),
  checksumSha256: checksumField()
    .optional()
    .describe(
      "Base64 SHA-256 of the part's bytes (as `x-amz-checksum-sha256`): required for every part of an upload " +
        'with `checksumAlgorithm`, refused for the others.',
    ),
});

export const multipartPartUrlsBodySchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      parts: z
        .array(z.object(partChecksumFields()).strict())
        .min(1)
        .max(MAX_PART_URLS)
        .describe(
          `The parts to sign a URL for (1 to ${MAX_PART_URLS}), each with its checksum when it has one.`,
        ),
    })
    .strict()
    .describe('Parts of an unfinished multipart upload to send.'),
);

export const multipartPartUrlsResponseSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      parts: z.array(partUrlSchema()).describe('One signed URL per part asked for, in the order asked.'),
    })
    .describe('Signed part URLs: PUT each part to its URL with its `headers`.'),
);

export const completeMultipartBodySchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      parts: z
        .array(
          z
            .object({
              ...partChecksumFields(),
              etag: z.string().min(1).max(128).describe("The `ETag` header the part's PUT answered."),
            })
            .strict(),
        )
        .min(1)
        .max(MAX_PARTS)
        .describe(
          'Every part, 1 to `partCount` in order, each with the ETag its upload answered (and, for an upload ' +
            'with `checksumAlgorithm`, the checksum its URL was signed for).',
        ),
      checksumSha256: compositeChecksumField()
        .optional()
        .describe(
          'For an upload with `checksumAlgorithm`, optionally: the composite checksum the client expects (base64 ' +
            "SHA-256 of the parts' concatenated binary SHA-256 digests, `-<partCount>`). When the parts' " +
            'checksums make another, nothing is assembled: 400 `multipart_checksum_mismatch`.',
        ),
    })
    .strict()
    .describe('The parts that make the object.'),
);

export const abortMultipartResponseSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      deleted: z.literal(true),
      id: z.string().describe('The aborted upload.'),
      fullPath: z.string().describe('The path it had reserved.'),
    })
    .describe('The upload is aborted: storage dropped its parts and the path is no longer reserved.'),
);
