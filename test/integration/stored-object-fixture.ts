/**
 * Records a stored object of a company through the storage data module (what upload-complete or a worker
 * leaves behind), so tests of routes that accept storage references have an object of their own.
 */
export const storeObjectRecord = async (
  companyId: string,
  fullPath: string,
  contentType = 'application/pdf',
) => {
  const { recordStoredObject } = await import('../../functions/shared/data/stored-objects');
  await recordStoredObject(
    companyId,
    {
      bucket: process.env.BUCKET_NAME ?? '',
      fullPath,
      size: 10,
      contentType,
      etag: 'e',
      createdAt: new Date().toISOString(),
    },
    new Date(),
  );
};
