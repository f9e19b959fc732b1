import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { s3 } from './s3';

/**
 * File transfers of the media engines (large objects, streamed): download an object to a file, upload a
 * file. Head, put and presign live in `./s3`.
 */
export { headObject } from './s3';

/** Bucket and key of a path-style object URL (`https://s3.<region>.amazonaws.com/<bucket>/<key>`). */
export const objectOfUrl = (url: string): { bucket: string; key: string } | undefined => {
  const path = decodeURIComponent(new URL(url).pathname).replace(/^\//, '');
  const slash = path.indexOf('/');
  return slash > 0 ? { bucket: path.slice(0, slash), key: path.slice(slash + 1) } : undefined;
};

/** A short-lived presigned GET for a media engine that streams the object (signed by the process role). */
export const presignRead = (bucket: string, key: string, expiresIn = 900): Promise<string> =>
  getSignedUrl(s3(), new GetObjectCommand({ Bucket: bucket, Key: key }), { expiresIn });

export const downloadObject = async (bucket: string, key: string, file: string): Promise<void> => {
  const { Body } = await s3().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  if (!Body) throw new Error(`Object s3://${bucket}/${key} has no body`);
  await pipeline(Body as Readable, createWriteStream(file));
};

/** Uploads a file; returns its size and ETag. */
export const uploadFile = async (
  bucket: string,
  key: string,
  file: string,
  contentType: string,
): Promise<{ size: number; etag: string }> => {
  const { size } = await stat(file);
  const out = await s3().send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: key,
      Body: createReadStream(file),
      ContentLength: size,
      ContentType: contentType,
    }),
  );
  return { size, etag: (out.ETag ?? '').replaceAll('"', '') };
};

/** A small object's body and ETag (engine output of a few MB at most), or undefined when there is none. */
export const readObject = async (
  bucket: string,
  key: string,
): Promise<{ body: Uint8Array; etag: string } | undefined> => {
  try {
    const { Body, ETag } = await s3().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return Body
      ? { body: await Body.transformToByteArray(), etag: (ETag ?? '').replaceAll('"', '') }
      : undefined;
  } catch (error) {
    if (error instanceof Error && (error.name === 'NoSuchKey' || error.name === 'NotFound')) return undefined;
    throw error;
  }
};

/** A small object's body as text, or undefined when there is none. */
export const readObjectText = async (bucket: string, key: string): Promise<string | undefined> => {
  const object = await readObject(bucket, key);
  return object && Buffer.from(object.body).toString('utf8');
};
