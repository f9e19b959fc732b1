import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { env } from '../env';

const { region, s3Endpoint } = env();

/**
 * S3 object reads and writes of the media workers: head, download to a file, upload a file. On the local
 * stack the endpoint points at s3rver (path style, no checksum framing on streamed uploads).
 */
export const s3 = new S3Client({
  region,
  ...(s3Endpoint
    ? {
        endpoint: s3Endpoint,
        forcePathStyle: true,
        requestChecksumCalculation: 'WHEN_REQUIRED' as const,
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      }
    : {}),
});

export interface ObjectHead {
  size: number;
  etag: string;
  contentType: string | undefined;
}

/** `undefined` when the object does not exist. */
export const headObject = async (bucket: string, key: string): Promise<ObjectHead | undefined> => {
  try {
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return {
      size: Number(head.ContentLength ?? 0),
      etag: (head.ETag ?? '').replace(/"/g, ''),
      contentType: head.ContentType,
    };
  } catch (error) {
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (error instanceof Error && (error.name === 'NotFound' || error.name === 'NoSuchKey' || status === 404))
      return undefined;
    throw error;
  }
};

export const downloadObject = async (bucket: string, key: string, file: string): Promise<void> => {
  const { Body } = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  if (!Body) throw new Error(`Object s3://${bucket}/${key} has no body`);
  await pipeline(Body as Readable, createWriteStream(file));
};

export const uploadFile = async (bucket: string, key: string, file: string, contentType: string) => {
  const { size } = await stat(file);
  await s3.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: key,
      Body: createReadStream(file),
      ContentLength: size,
      ContentType: contentType,
    }),
  );
};
