import { createHash } from 'node:crypto';

/**
 * SHA-256 checksums as S3 keeps them (`x-amz-checksum-sha256`, base64). An object uploaded in one PUT has a
 * `FULL_OBJECT` checksum, the SHA-256 of its content. An object a multipart upload assembled has a
 * `COMPOSITE` one: the SHA-256 of the concatenated binary SHA-256 digests of its parts, in part order, then
 * `-<part count>`. The storage routes, the AWS adapter and the local S3 all compute and read it here.
 */
export type ChecksumType = 'FULL_OBJECT' | 'COMPOSITE';

/** The composite checksum of parts whose base64 SHA-256 checksums are `partChecksums`, in part order. */
export const compositeChecksumSha256 = (partChecksums: readonly string[]): string => {
  const digests = Buffer.concat(partChecksums.map((checksum) => Buffer.from(checksum, 'base64')));
  return `${createHash('sha256').update(digests).digest('base64')}-${partChecksums.length}`;
};

/** Whether a checksum S3 answered is a composite (`<base64>-<part count>`) or a whole object's. */
export const checksumTypeOf = (checksum: string): ChecksumType =>
  /-[0-9]+$/.test(checksum) ? 'COMPOSITE' : 'FULL_OBJECT';
