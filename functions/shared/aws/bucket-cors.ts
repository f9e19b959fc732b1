/**
 * CORS of the platform bucket, applied by the CDK data stack and by the local stack alike: browsers may PUT
 * to a presigned upload URL and GET a presigned download URL from any origin. The signature in the URL is
 * the authorisation, so the origin adds nothing to check; credentials (cookies) are never involved.
 */
export const BUCKET_CORS_RULE = {
  allowedMethods: ['GET', 'HEAD', 'PUT'] as const,
  allowedOrigins: ['*'],
  allowedHeaders: ['content-type', 'content-length', 'content-md5', 'x-amz-*'],
  exposedHeaders: ['ETag', 'Content-Length', 'Content-Type'],
  maxAgeSeconds: 3000,
};
