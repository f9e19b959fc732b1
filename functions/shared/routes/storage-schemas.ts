import {
  DEFAULT_FILE_PAGE,
  FULL_PATH_PATTERN,
  MAX_BUCKET_NAME_LENGTH,
  MAX_DOWNLOAD_URL_SECONDS,
  MAX_FILE_PAGE,
  MAX_FULL_PATH_BYTES,
  MAX_SINGLE_UPLOAD_BYTES,
} from '../domain/storage-limits';
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
const checksumField = /* @__PURE__ */ lazy(() =>
  z
    .string()
    .length(44)
    .regex(/^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/, 'checksumSha256 must be the base64 of a SHA-256 digest')
    .describe("Base64 SHA-256 of the content (as S3's `x-amz-checksum-sha256`)."),
);

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

export const uploadUrlBodySchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
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
        .max(MAX_SINGLE_UPLOAD_BYTES)
        .describe(
          "Exact size in bytes; at most the plan's `maxObjectBytes` (413 `payload_too_large` above).",
        ),
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
      expiresAt: z.iso.datetime().describe('The upload URL stops working at this time (15 minutes).'),
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
      checksumSha256: checksumField()
        .optional()
        .describe('Base64 SHA-256 of the content, when the upload declared one.'),
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
          .extend({ createdAt: z.iso.datetime().describe('When the object was recorded.') })
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
      expiresAt: z.iso.datetime().describe('The URL stops working at this time.'),
    })
    .describe('A signed download URL.'),
);
