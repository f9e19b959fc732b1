/** Fixed limits of the storage routes (plan limits come on top). */

/** Upload URLs are short-lived: long enough for a large file on a slow link, short enough to be useless later. */
export const UPLOAD_URL_SECONDS = 900;
/** SigV4 presigned URLs cannot live longer than 7 days. */
export const MAX_DOWNLOAD_URL_SECONDS = 604_800;
export const DEFAULT_DOWNLOAD_URL_SECONDS = 3600;
/** S3's limit for one PUT (larger files would need multipart upload). */
export const MAX_SINGLE_UPLOAD_BYTES = 5 * 1024 ** 3;
