import { headObject } from '../aws/s3-objects';
import type { TranscodeSource } from '../data/transcode-jobs';
import { env } from '../env';
import { NotFoundError, ValidationError } from '../errors';

/**
 * Resolves the `{bucket?, fullPath}` of a transcode source to the caller's existing stored object, with the
 * content identity (size and ETag) that reuse is keyed on. Only the platform bucket is accepted, and only
 * paths under the company's own prefix: a path of another company answers 404 like a missing file.
 */
export const companyPrefix = (companyId: string) => `companies/${companyId}/`;

const MALFORMED = /(^\/)|(\/\/)|(^|\/)\.\.?(\/|$)|\\/;
const hasControlCharacter = (path: string) => [...path].some((c) => c.charCodeAt(0) < 0x20);

export const resolveTranscodeSource = async (
  companyId: string,
  ref: { bucket?: string | undefined; fullPath: string },
): Promise<TranscodeSource> => {
  const bucket = ref.bucket ?? env().bucketName;
  if (
    ref.fullPath === '' ||
    ref.fullPath.length > 1024 ||
    MALFORMED.test(ref.fullPath) ||
    hasControlCharacter(ref.fullPath)
  ) {
    throw new ValidationError([
      { pointer: '/body/fullPath', message: 'Must be a stored object path such as companies/<id>/file.mp3.' },
    ]);
  }
  const notFound = new NotFoundError('No stored file at this bucket and path.');
  if (bucket !== env().bucketName || !ref.fullPath.startsWith(companyPrefix(companyId))) throw notFound;
  const head = await headObject(bucket, ref.fullPath);
  if (!head) throw notFound;
  return {
    bucket,
    fullPath: ref.fullPath,
    size: head.size,
    etag: head.etag,
    ...(head.contentType ? { contentType: head.contentType } : {}),
  };
};
