import { getStoredObject, type StoredObject } from '../data/stored-objects';
import { env } from '../env';
import { AppError, NotFoundError } from '../errors';
import { companyObjectRoot } from '../types/object-prefixes';
import { MAX_FULL_PATH_BYTES } from './storage-limits';

/**
 * The one validator of storage references `{bucket, fullPath}`, used by every route that accepts one.
 *
 * Shape first, without any I/O: the bucket must be the platform bucket (or absent), and the path must be a
 * normalised relative key: 1 to 1024 UTF-8 bytes, segments separated by single `/`, no empty, `.` or `..`
 * (or any all-dots) segment, no leading or trailing `/`, and only the characters `A-Z a-z 0-9 . _ - ~ + = @ , ( )`
 * in each segment. That whitelist rejects backslashes, control characters, percent-encoding (so no encoded
 * traversal can be decoded later by anything), whitespace and Unicode look-alikes of `/` and `.`. A malformed
 * reference is a 400 `invalid_storage_reference` pointing at the offending field.
 *
 * Tenancy next: a well formed path outside `companies/<companyId>/` is answered 404 `not_found`, exactly
 * like a missing object, so a caller learns nothing about other tenants' objects.
 */
export interface StorageReference {
  bucket: string;
  fullPath: string;
}

export const companyStoragePrefix = companyObjectRoot;

const SEGMENT = /^[A-Za-z0-9._~+=@,()-]+$/;
const ALL_DOTS = /^\.+$/;

const invalid = (pointer: string, message: string): AppError =>
  new AppError('invalid_storage_reference', `The storage reference is not valid: ${message}`, {
    errors: [{ pointer, message }],
  });

/** Why a path is malformed, or undefined when it is well formed. */
export const storagePathProblem = (fullPath: unknown): string | undefined => {
  if (typeof fullPath !== 'string') return 'fullPath must be a string';
  if (fullPath.length === 0) return 'fullPath must not be empty';
  if (Buffer.byteLength(fullPath, 'utf8') > MAX_FULL_PATH_BYTES)
    return `fullPath must be at most ${MAX_FULL_PATH_BYTES} bytes`;
  if (fullPath.startsWith('/')) return 'fullPath must be relative (no leading /)';
  if (fullPath.endsWith('/')) return 'fullPath must name an object (no trailing /)';
  for (const segment of fullPath.split('/')) {
    if (segment === '') return 'fullPath must not contain empty segments (//)';
    if (ALL_DOTS.test(segment)) return 'fullPath must not contain . or .. segments';
    if (!SEGMENT.test(segment))
      return 'fullPath may contain only letters, digits and . _ - ~ + = @ , ( ) between single slashes';
  }
  return undefined;
};

/**
 * Shape and tenancy only, no I/O. Malformed → 400 `invalid_storage_reference` with an `errors` pointer
 * (`pointer`, default `/body/fullPath`; the bucket's pointer is its sibling); well formed but outside the
 * caller's prefix → 404. Bucket absent → the platform bucket.
 */
export const parseStorageReference = (
  companyId: string,
  input: { bucket?: string; fullPath: string },
  pointer = '/body/fullPath',
): StorageReference => {
  const platformBucket = env().bucketName;
  const bucket: unknown = input.bucket;
  if (bucket !== undefined && bucket !== platformBucket) {
    const bucketPointer = pointer.endsWith('/fullPath')
      ? `${pointer.slice(0, -'/fullPath'.length)}/bucket`
      : `${pointer}/bucket`;
    throw invalid(bucketPointer, 'bucket must be the platform bucket or absent');
  }
  const problem = storagePathProblem(input.fullPath);
  if (problem) throw invalid(pointer, problem);
  const prefix = companyStoragePrefix(companyId);
  if (!input.fullPath.startsWith(prefix) || input.fullPath.length === prefix.length) {
    throw new NotFoundError('No stored object at this reference.');
  }
  return { bucket: platformBucket, fullPath: input.fullPath };
};

/** parseStorageReference + the object must be recorded (upload-complete, or a worker's output) → else 404. */
export const resolveStoredObject = async (
  companyId: string,
  input: { bucket?: string; fullPath: string },
  pointer?: string,
): Promise<StoredObject> => {
  const reference = parseStorageReference(companyId, input, pointer);
  const object = await getStoredObject(companyId, reference.fullPath);
  if (!object) throw new NotFoundError('No stored object at this reference.');
  return object;
};
