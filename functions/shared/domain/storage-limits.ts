/** Fixed limits of the storage routes (plan limits come on top). */

/** Upload URLs are short-lived: long enough for a large file on a slow link, short enough to be useless later. */
export const UPLOAD_URL_SECONDS = 900;
/** SigV4 presigned URLs cannot live longer than 7 days. */
export const MAX_DOWNLOAD_URL_SECONDS = 604_800;
export const DEFAULT_DOWNLOAD_URL_SECONDS = 3600;
/** File lists (`GET /v1/storage/files`): 100 a page by default, at most 1000 (one Query of the index). */
export const DEFAULT_FILE_PAGE = 100;
export const MAX_FILE_PAGE = 1000;
/** S3's limit for one PUT (larger files would need multipart upload). */
export const MAX_SINGLE_UPLOAD_BYTES = 5 * 1024 ** 3;

/** S3's own key limit: the longest `fullPath`, in bytes. */
export const MAX_FULL_PATH_BYTES = 1024;
/** The longest S3 bucket name: a request naming a longer bucket is refused before any lookup. */
export const MAX_BUCKET_NAME_LENGTH = 63;

/**
 * What a well-formed `fullPath` looks like, for documents: segments of letters, digits and `. _ - ~ + = @ , ( )`
 * between single slashes under `companies/<companyId>/` (`storage-references.ts` enforces it, also refusing
 * segments made only of dots, and answers another company's path 404).
 */
export const FULL_PATH_PATTERN = '^companies/[A-Za-z0-9._~+=@,()-]+(/[A-Za-z0-9._~+=@,()-]+)+$';

/** Multipart uploads (`POST /v1/storage/multipart-uploads`): S3's part rules and the platform's defaults. */
export const MIN_PART_BYTES = 5 * 1024 ** 2;
export const MAX_PART_BYTES = 5 * 1024 ** 3;
export const DEFAULT_PART_BYTES = 8 * 1024 ** 2;
export const MAX_PARTS = 10_000;
/** S3's largest object, the most a multipart upload can declare (plans cap it lower). */
export const MAX_MULTIPART_UPLOAD_BYTES = 5 * 1024 ** 4;
/** A multipart reservation lives a day: parts may be sent, resumed and completed until then. */
export const MULTIPART_RESERVATION_SECONDS = 86_400;
/** Part URLs live an hour; asking for the upload again answers fresh ones for the parts still missing. */
export const PART_URL_SECONDS = 3600;
/** At most this many part URLs in one answer (the answer stays small); the rest come with the next read. */
export const MAX_PART_URLS = 1000;
