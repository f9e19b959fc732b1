import { presignDownload } from '../../aws/s3';
import { parseStorageReference } from '../storage-references';

/**
 * The channel's copy of a message body: the storage reference of a file message (`file: {bucket?, fullPath}`)
 * gains a download URL for the company's sender, `file: {bucket, fullPath, url, urlExpiresAt}`, signed as the
 * storage area signs download URLs (the download signer's key on AWS). It lives one hour from the attempt
 * that carries it, long enough for the sender to fetch the file, short enough that a forwarded payload soon
 * stops opening it; each retry signs a new one. The reference was checked when the message was accepted; the
 * object is not read again (a file deleted since answers 404 to its URL).
 */
export const MESSAGE_FILE_URL_SECONDS = 3600;

export const withDownloadUrls = async (
  companyId: string,
  body: Record<string, unknown>,
  now: Date,
): Promise<Record<string, unknown>> => {
  const file = body.file as { bucket?: string; fullPath?: unknown } | undefined;
  if (!file || typeof file.fullPath !== 'string') return body;
  const reference = parseStorageReference(companyId, { ...file, fullPath: file.fullPath });
  const url = await presignDownload(reference.bucket, reference.fullPath, MESSAGE_FILE_URL_SECONDS);
  const urlExpiresAt = new Date(now.getTime() + MESSAGE_FILE_URL_SECONDS * 1000).toISOString();
  return { ...body, file: { ...reference, url, urlExpiresAt } };
};
