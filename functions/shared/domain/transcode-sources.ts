import type { TranscodeSource } from '../data/transcode-jobs';
import { companyStoragePrefix, resolveStoredObject } from './storage-references';

/**
 * The source of a transcode is one of the caller's stored objects: a malformed reference is 400
 * `invalid_storage_reference`, another company's path or a missing object 404. Its recorded size and ETag
 * are the content identity that reuse is keyed on.
 */
export const companyPrefix = companyStoragePrefix;

export const resolveTranscodeSource = async (
  companyId: string,
  ref: { bucket?: string | undefined; fullPath: string },
): Promise<TranscodeSource> => {
  const object = await resolveStoredObject(companyId, {
    fullPath: ref.fullPath,
    ...(ref.bucket === undefined ? {} : { bucket: ref.bucket }),
  });
  return {
    bucket: object.bucket,
    fullPath: object.fullPath,
    size: object.size,
    etag: object.etag,
    contentType: object.contentType,
  };
};
