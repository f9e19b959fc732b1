import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import type { ComputeMs, MeterName } from '../types/meters';
import { companyOfObjectPath } from '../types/object-prefixes';
import * as zm from '../zod-mini';
import type { BatchEntry } from './batch';
import { ddb, isConditionalCheckFailed, tableName } from './client';
import { defineEntity } from './entity';
import { indexPartitions, partitions, sortKeys } from './keys';
import { TABLE_SHAPE } from './table';
import { type CancellationReason, cancellationReasons, sendTransaction } from './transactions';
import { type Condition, updateParams } from './update-expression';
import { addStorageBytesItem, billedWork, limitedUsageItems, usageItems } from './usage-meters';

/**
 * Stored objects: one item per object path (`CO#<companyId>#OBJ#<fullPath>`, sort key `OBJECT`), so a lookup
 * by reference is one GetItem and objects never crowd one partition. An item is either an upload reservation
 * (`status: pending`, made by the upload-URL step, expiring through `ttl`) or a stored object
 * (`status: stored`). Recording an object and adding its bytes to the company's running `storageBytes`
 * (the usage totals item) happen in one transaction whose first write is conditional, so the bytes are
 * counted exactly once however often an object is recorded.
 *
 * A stored object is also in the company's file list, the `gsi1` partition `CO#<companyId>#FILES` sorted by
 * `fullPath` (so a prefix is a `begins_with`): the index attributes are written by every write that makes an
 * item `stored` (`recordUpdate`), and leave with the item when it is deleted. Items stored before the list
 * existed carry none until the operator backfill gives them theirs (`fileListBackfill`, `admin files reindex`;
 * see `docs/storage.md#listing-files`).
 */
export interface StoredObject {
  bucket: string;
  fullPath: string;
  size: number;
  contentType: string;
  etag: string;
  createdAt: string;
  /** Base64 SHA-256 of the content, when the upload declared one (S3 checked it). */
  checksumSha256?: string;
}

export interface UploadReservation {
  bucket: string;
  fullPath: string;
  size: number;
  contentType: string;
  fileName: string;
  expiresAt: string;
  checksumSha256?: string;
  /** A multipart upload's S3 upload id and part layout (`domain/storage-multipart.ts`). */
  multipart?: MultipartLayout;
}

export interface MultipartLayout {
  uploadId: string;
  partSize: number;
  partCount: number;
  /** `SHA256`: every part carries its checksum, and the object gets the composite of them. */
  checksumAlgorithm?: 'SHA256';
}

const fileListIndexKey = (companyId: string, fullPath: string) => ({
  gsi1pk: indexPartitions.storedFiles(companyId),
  gsi1sk: fullPath,
});

/** The file list's index attributes of a stored object (its company is the one its path lies under). */
export const fileListKey = (fullPath: string) => {
  const companyId = companyOfObjectPath(fullPath);
  return companyId === undefined ? undefined : fileListIndexKey(companyId, fullPath);
};

export const storedObjectKey = (companyId: string, fullPath: string) => ({
  pk: partitions.storedObjects(companyId, fullPath),
  sk: sortKeys.storedObject,
});

/** The item is a stored object or an upload reservation (`status`); the other's members may linger. */
const StoredObjectItem = /* @__PURE__ */ defineEntity({
  name: 'stored_object',
  key: storedObjectKey,
  get schema() {
    return zm.union([
      zm.object({
        status: zm.literal('stored'),
        bucket: zm.string(),
        fullPath: zm.string(),
        size: zm.number(),
        contentType: zm.string(),
        etag: zm.optional(zm.string()),
        createdAt: zm.string(),
        checksumSha256: zm.optional(zm.string()),
      }),
      zm.object({
        status: zm.literal('pending'),
        bucket: zm.string(),
        fullPath: zm.string(),
        declaredSize: zm.number(),
        declaredContentType: zm.string(),
        fileName: zm.string(),
        reservedAt: zm.string(),
        expiresAt: zm.string(),
        declaredChecksumSha256: zm.optional(zm.string()),
        uploadId: zm.optional(zm.string()),
        partSize: zm.optional(zm.number()),
        partCount: zm.optional(zm.number()),
        checksumAlgorithm: zm.optional(zm.literal('SHA256')),
      }),
    ]);
  },
  // The company's file list: stored objects only, never a reservation.
  index: (record) => (record.status === 'stored' ? fileListKey(record.fullPath) : undefined),
});
type StoredObjectItemRecord = zm.output<typeof StoredObjectItem.schema>;
const ENTITY = StoredObjectItem.name;
/** An abandoned reservation is removed a day after its upload URL expired. */
const RESERVATION_GRACE_SECONDS = 86_400;

type Item = Record<string, unknown>;

const toStoredObject = (record: Extract<StoredObjectItemRecord, { status: 'stored' }>): StoredObject => ({
  bucket: record.bucket,
  fullPath: record.fullPath,
  size: record.size,
  contentType: record.contentType,
  etag: record.etag ?? '',
  createdAt: record.createdAt,
  ...(record.checksumSha256 === undefined ? {} : { checksumSha256: record.checksumSha256 }),
});

/**
 * The write that puts a stored object recorded before the file list existed into the list
 * (`stored-file-reindex.ts` finds them): the index attributes the entity computes, set only while the item is
 * `stored` and holds none, so a repeated or racing backfill changes nothing. Undefined for an item that is
 * only a reservation or whose path lies under no company.
 */
export const fileListBackfill = (item: Record<string, unknown>) => {
  const record = StoredObjectItem.decode(item);
  if (record.status !== 'stored') return undefined;
  const index = StoredObjectItem.indexOf(record);
  const companyId = companyOfObjectPath(record.fullPath);
  if (companyId === undefined || !('gsi1pk' in index)) return undefined;
  return {
    Key: storedObjectKey(companyId, record.fullPath),
    ...StoredObjectItem.update(
      { set: index },
      {
        expression: '#status = :stored AND attribute_not_exists(#gsi1pk)',
        names: { '#status': 'status' },
        values: { ':stored': 'stored' },
      },
    ),
  };
};

/** The entity name of stored-object items (their `entity` attribute). */
export const STORED_OBJECT_ENTITY = ENTITY;

/** The stored object of an item, or undefined when the item is only a reservation. */
const storedObjectOf = (record: StoredObjectItemRecord): StoredObject | undefined =>
  record.status === 'stored' ? toStoredObject(record) : undefined;

const readItem = async (companyId: string, fullPath: string): Promise<StoredObjectItemRecord | undefined> => {
  const { Item } = await ddb.send(
    new GetCommand({
      TableName: tableName(),
      Key: storedObjectKey(companyId, fullPath),
      ConsistentRead: true,
    }),
  );
  return Item ? StoredObjectItem.decode(Item) : undefined;
};

/** The stored object at `fullPath` (undefined for nothing there, or only an unfinished upload), for a batch read. */
export const storedObjectEntry = (
  companyId: string,
  fullPath: string,
): BatchEntry<StoredObject | undefined> => ({
  key: storedObjectKey(companyId, fullPath),
  decode: (item) => storedObjectOf(StoredObjectItem.decode(item)),
});

/** The stored object at `fullPath`, or undefined (nothing there, or only an unfinished upload). */
export const getStoredObject = async (
  companyId: string,
  fullPath: string,
): Promise<StoredObject | undefined> => {
  const item = await readItem(companyId, fullPath);
  return item && storedObjectOf(item);
};

/** Plain decoding of the S and N attribute values this module writes (condition-failure return values). */
const decode = (
  raw: Record<string, Record<string, unknown>> | undefined,
): StoredObjectItemRecord | undefined => {
  if (!raw) return undefined;
  const item: Item = {};
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value.S === 'string') item[name] = value.S;
    else if (typeof value.N === 'string') item[name] = Number(value.N);
  }
  return StoredObjectItem.decode(item);
};

/** The failed item of a cancelled transaction as it was, from the error or else read again. */
const oldItem = async (reason: CancellationReason | undefined, companyId: string, fullPath: string) =>
  decode(reason?.Item) ?? (await readItem(companyId, fullPath));

/** The record of a stored object as its item holds it (an upload reservation's `ttl` is removed). */
type StoredRecordItem = StoredObject & {
  status: 'stored' | 'pending';
  entity: string;
  ttl?: number;
  gsi1pk?: string;
  gsi1sk?: string;
};

/** The update that makes the item the object's record, `stored`, under `condition`. */
const recordUpdate = (object: StoredObject, condition: Condition) =>
  updateParams<StoredRecordItem>(
    {
      set: {
        status: 'stored',
        bucket: object.bucket,
        fullPath: object.fullPath,
        size: object.size,
        contentType: object.contentType,
        etag: object.etag,
        createdAt: object.createdAt,
        checksumSha256: object.checksumSha256,
        entity: ENTITY,
        ...StoredObjectItem.indexOf({ status: 'stored', ...object }),
      },
      remove: ['ttl'],
    },
    condition,
  );

/** Transaction item: the object's record as `stored`, under `condition`. */
const recordItem = (companyId: string, object: StoredObject, condition: Condition) => ({
  Update: {
    TableName: tableName(),
    Key: storedObjectKey(companyId, object.fullPath),
    ...recordUpdate(object, condition),
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  },
});

/**
 * Records an object and adds its bytes to the company's storage figure exactly once (one transaction);
 * recording the same path again changes nothing and returns the existing record with created: false.
 * For objects the platform writes itself (worker outputs); uploads go through `completeUpload`.
 */
export const recordStoredObject = async (
  companyId: string,
  object: StoredObject,
  _now: Date,
): Promise<{ object: StoredObject; created: boolean }> => {
  try {
    await sendTransaction(
      new TransactWriteCommand({
        TransactItems: [
          recordItem(companyId, object, {
            expression: 'attribute_not_exists(pk) OR #status <> :stored',
            values: { ':stored': 'stored' },
          }),
          addStorageBytesItem(companyId, object.size),
        ],
      }),
    );
    return { object, created: true };
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (reasons?.[0]?.Code !== 'ConditionalCheckFailed') throw error;
    const existing = await oldItem(reasons[0], companyId, object.fullPath);
    const stored = existing && storedObjectOf(existing);
    if (!stored) throw error;
    return { object: stored, created: false };
  }
};

/**
 * Transaction items recording objects the platform wrote (new paths, or paths holding only a reservation),
 * for a transaction whose own condition makes it run once (a job's move to `done` records its output
 * files), so the objects are recorded exactly when it holds. Their bytes are the caller's to add to the
 * storage figure once: a job's move leaves them on its settle mark (`jobs/settle.ts`, decision 0065).
 */
export const recordStoredObjectItems = (companyId: string, objects: readonly StoredObject[]) =>
  objects.map((object) =>
    recordItem(companyId, object, {
      expression: 'attribute_not_exists(pk) OR #status <> :stored',
      values: { ':stored': 'stored' },
    }),
  );

/**
 * Records an object the platform wrote and bills `meter` for it, in one transaction: the record (a new path),
 * its bytes in `storageBytes` within `storageLimitBytes`, and the meter within its `limit` (with the compute
 * time of the work that made it, `computeMs`). Nothing is written
 * when either allowance would be passed (`storage_limit_reached`, `meter_limit_reached`).
 */
export const recordBilledObject = async (
  companyId: string,
  object: StoredObject,
  storageLimitBytes: number | undefined,
  meter: { name: MeterName; amount: number; now: Date; limit?: number; computeMs?: ComputeMs },
): Promise<'created' | 'storage_limit_reached' | 'meter_limit_reached'> => {
  const headroom = storageLimitBytes === undefined ? undefined : storageLimitBytes - object.size;
  if (headroom !== undefined && headroom < 0) return 'storage_limit_reached';
  const work = billedWork(meter.name, meter.amount, meter.computeMs);
  try {
    await sendTransaction(
      new TransactWriteCommand({
        TransactItems: [
          recordItem(companyId, object, { expression: 'attribute_not_exists(pk)' }),
          addStorageBytesItem(companyId, object.size, { headroom }),
          ...(meter.limit === undefined
            ? usageItems(companyId, meter.now, work)
            : await limitedUsageItems(companyId, meter.now, work, {
                figure: meter.name,
                limit: meter.limit,
              })),
        ],
      }),
    );
    return 'created';
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (reasons?.[1]?.Code === 'ConditionalCheckFailed') return 'storage_limit_reached';
    if (reasons?.[2]?.Code === 'ConditionalCheckFailed') return 'meter_limit_reached';
    throw error;
  }
};

/** Reserves a path for an upload (one conditional write); the path is new, so a clash is a defect. */
export const reserveUpload = async (
  companyId: string,
  reservation: UploadReservation,
  now: Date,
): Promise<void> => {
  const expiresEpoch = Math.ceil(Date.parse(reservation.expiresAt) / 1000);
  try {
    await ddb.send(
      new PutCommand({
        TableName: tableName(),
        Item: StoredObjectItem.item(
          storedObjectKey(companyId, reservation.fullPath),
          {
            status: 'pending',
            bucket: reservation.bucket,
            fullPath: reservation.fullPath,
            declaredSize: reservation.size,
            declaredContentType: reservation.contentType,
            fileName: reservation.fileName,
            reservedAt: now.toISOString(),
            expiresAt: reservation.expiresAt,
            ...(reservation.checksumSha256 === undefined
              ? {}
              : { declaredChecksumSha256: reservation.checksumSha256 }),
            ...reservation.multipart,
          },
          { ttl: expiresEpoch + RESERVATION_GRACE_SECONDS },
        ),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailed(error))
      throw new Error(`Upload path already reserved: ${reservation.fullPath}`);
    throw error;
  }
};

/** What is at a reserved path: the reservation while it is pending, the stored object once completed. */
export type ReservationState =
  | { status: 'pending'; reservation: UploadReservation }
  | { status: 'stored'; object: StoredObject };

/** The reservation or stored object at `fullPath`, or undefined when there is neither. */
export const getUploadReservation = async (
  companyId: string,
  fullPath: string,
): Promise<ReservationState | undefined> => {
  const item = await readItem(companyId, fullPath);
  if (!item) return undefined;
  if (item.status === 'stored') return { status: 'stored', object: toStoredObject(item) };
  const { uploadId, partSize, partCount, checksumAlgorithm } = item;
  return {
    status: 'pending',
    reservation: {
      bucket: item.bucket,
      fullPath: item.fullPath,
      size: item.declaredSize,
      contentType: item.declaredContentType,
      fileName: item.fileName,
      expiresAt: item.expiresAt,
      ...(item.declaredChecksumSha256 === undefined ? {} : { checksumSha256: item.declaredChecksumSha256 }),
      ...(uploadId === undefined || partSize === undefined || partCount === undefined
        ? {}
        : {
            multipart: {
              uploadId,
              partSize,
              partCount,
              ...(checksumAlgorithm === undefined ? {} : { checksumAlgorithm }),
            },
          }),
    },
  };
};

/** Deletes a pending multipart reservation of that upload id; false when it is not there (any more). */
export const deleteMultipartReservation = async (
  companyId: string,
  fullPath: string,
  uploadId: string,
): Promise<boolean> => {
  try {
    await ddb.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: storedObjectKey(companyId, fullPath),
        ConditionExpression: '#status = :pending AND uploadId = :uploadId',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':pending': 'pending', ':uploadId': uploadId },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
};

export type CompleteUploadOutcome =
  | { kind: 'created'; object: StoredObject }
  | { kind: 'existing'; object: StoredObject }
  | { kind: 'no_reservation' }
  | { kind: 'mismatch'; declared: { size: number; contentType: string; checksumSha256?: string } }
  | { kind: 'storage_limit_reached' };

/**
 * Turns a reservation into a stored object when the uploaded object (`object`, from S3) matches the declared
 * size and content type, and adds its bytes to the storage figure, in one transaction. With
 * `storageLimitBytes`, the bytes are added only while the total stays within it. The outcome says what
 * happened when nothing was written: already completed (the existing record), no reservation, mismatch, or
 * the storage allowance.
 */
export const completeUpload = async (
  companyId: string,
  object: StoredObject,
  storageLimitBytes?: number,
): Promise<CompleteUploadOutcome> => {
  const headroom = storageLimitBytes === undefined ? undefined : storageLimitBytes - object.size;
  if (headroom !== undefined && headroom < 0) {
    // Over the allowance whatever happens: say so only for a path the caller reserved, so an object nobody
    // reserved (a job's output, say) is never reported, and never deleted, as a refused upload.
    const item = await readItem(companyId, object.fullPath);
    if (!item) return { kind: 'no_reservation' };
    const stored = storedObjectOf(item);
    if (stored) return { kind: 'existing', object: stored };
    return { kind: 'storage_limit_reached' };
  }
  try {
    await sendTransaction(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: storedObjectKey(companyId, object.fullPath),
              ...recordUpdate(object, {
                expression:
                  '#status = :pending AND declaredSize = :declaredSize AND declaredContentType = :declaredType' +
                  (object.checksumSha256 === undefined
                    ? ' AND attribute_not_exists(declaredChecksumSha256)'
                    : ' AND (attribute_not_exists(declaredChecksumSha256) OR declaredChecksumSha256 = :declaredChecksum)'),
                values: {
                  ':pending': 'pending',
                  ':declaredSize': object.size,
                  ':declaredType': object.contentType,
                  ...(object.checksumSha256 === undefined
                    ? {}
                    : { ':declaredChecksum': object.checksumSha256 }),
                },
              }),
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
          addStorageBytesItem(companyId, object.size, { headroom }),
        ],
      }),
    );
    return { kind: 'created', object };
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (!reasons) throw error;
    const [objectReason, totalsReason] = reasons;
    if (objectReason?.Code === 'ConditionalCheckFailed') {
      const existing = await oldItem(objectReason, companyId, object.fullPath);
      if (!existing) return { kind: 'no_reservation' };
      if (existing.status === 'stored') return { kind: 'existing', object: toStoredObject(existing) };
      return {
        kind: 'mismatch',
        declared: {
          size: existing.declaredSize,
          contentType: existing.declaredContentType,
          ...(existing.declaredChecksumSha256 === undefined
            ? {}
            : { checksumSha256: existing.declaredChecksumSha256 }),
        },
      };
    }
    if (totalsReason?.Code === 'ConditionalCheckFailed') return { kind: 'storage_limit_reached' };
    throw error;
  }
};

/**
 * A page of the company's stored objects whose `fullPath` starts with `prefix` (itself under the company's
 * root), in path order: one Query of the company's file list. The cursor is the `fullPath` of the last
 * object shown (the caller checks it lies under `prefix`); one item more than the page is read, so
 * `nextCursor` is null exactly on the last page.
 */
export const listStoredObjects = async (
  companyId: string,
  request: { prefix: string; limit: number; cursor?: string | undefined },
): Promise<{ objects: StoredObject[]; nextCursor: string | null }> => {
  const partition = indexPartitions.storedFiles(companyId);
  const { Items = [] } = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: TABLE_SHAPE.gsi1.indexName,
      KeyConditionExpression: 'gsi1pk = :files AND begins_with(gsi1sk, :prefix)',
      ExpressionAttributeValues: { ':files': partition, ':prefix': request.prefix },
      Limit: request.limit + 1,
      ...(request.cursor === undefined
        ? {}
        : {
            ExclusiveStartKey: {
              ...storedObjectKey(companyId, request.cursor),
              ...fileListIndexKey(companyId, request.cursor),
            },
          }),
    }),
  );
  const objects = Items.slice(0, request.limit).flatMap((item) => {
    const stored = storedObjectOf(StoredObjectItem.decode(item));
    return stored ? [stored] : [];
  });
  const last = objects.at(-1);
  return {
    objects,
    nextCursor: Items.length > request.limit && last !== undefined ? last.fullPath : null,
  };
};

/**
 * Deletes the record of a stored object and subtracts its bytes from the company's storage figure, in one
 * transaction conditional on the record being the one read (`stored`, that size), so however many deletes
 * race, the bytes are subtracted once. Answers the deleted object, or undefined when there was none
 * (nothing at the path, only a reservation, or deleted meanwhile).
 */
export const deleteStoredObject = async (
  companyId: string,
  object: StoredObject,
): Promise<StoredObject | undefined> => {
  try {
    await sendTransaction(
      new TransactWriteCommand({
        TransactItems: [
          {
            Delete: {
              TableName: tableName(),
              Key: storedObjectKey(companyId, object.fullPath),
              ConditionExpression: '#status = :stored AND #size = :size',
              ExpressionAttributeNames: { '#status': 'status', '#size': 'size' },
              ExpressionAttributeValues: { ':stored': 'stored', ':size': object.size },
            },
          },
          addStorageBytesItem(companyId, -object.size),
        ],
      }),
    );
    return object;
  } catch (error) {
    if (cancellationReasons(error)?.[0]?.Code === 'ConditionalCheckFailed') return undefined;
    throw error;
  }
};
