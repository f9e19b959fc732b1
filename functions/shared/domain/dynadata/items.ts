import {
  getStoredItem,
  ItemWriteConflictError,
  insertItem,
  LOG_ENTRIES_TYPE,
  removeItem,
  replaceItem,
  type StoredItem,
  type TypeGuard,
} from '../../data/dynadata-items';
import { AppError, type FieldError, NotFoundError, ValidationError } from '../../errors';
import { etagOf, ifMatchHolds } from '../../etag';
import { ulid } from '../../ids';
import { documentReferenceErrors } from './document-references';
import { documentFieldsOf, isReservedFieldName, validateAgainst } from './json-schema';
import { type ResolvedType, requireWritable, resolveType } from './types';

/**
 * Dynadata items: create, read, update (JSON merge patch, RFC 7396, then the whole item is validated),
 * delete and validate. Every item carries the system fields `_id` (a ULID: sortable by creation time),
 * `_version` (1, then +1 per update; send it back with an update for optimistic concurrency), `createdAt`
 * and `updatedAt`. An item's fields, serialised as JSON, may take at most `MAX_DYNADATA_ITEM_BYTES`
 * (413 `payload_too_large` beyond).
 */
export const MAX_DYNADATA_ITEM_BYTES = 300_000;

export type PublicItem = { _id: string; _version: number; createdAt: string; updatedAt: string } & Record<
  string,
  unknown
>;

export const toPublicItem = (item: StoredItem): PublicItem => ({
  _id: item._id,
  _version: item._version,
  createdAt: item.createdAt,
  updatedAt: item.updatedAt,
  ...item.data,
});

const SYSTEM_FIELDS = ['_id', '_version', 'createdAt', 'updatedAt'];

/** The fields of a request body without the system fields a client may echo back. */
export const userFields = (body: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (!SYSTEM_FIELDS.includes(k)) out[k] = v;
  return out;
};

const byteSize = (data: Record<string, unknown>): number => Buffer.byteLength(JSON.stringify(data), 'utf8');

/** Every violation of `data` for the type: schema, reserved names, then document references. */
export const itemProblems = async (
  companyId: string,
  type: ResolvedType,
  data: Record<string, unknown>,
): Promise<{ code: 'validation_failed' | 'invalid_storage_reference'; errors: FieldError[] } | undefined> => {
  const errors = await validateAgainst(type.schema, data);
  for (const name of Object.keys(data))
    if (isReservedFieldName(name) && !SYSTEM_FIELDS.includes(name))
      errors.push({ pointer: `/body/${name}`, message: 'is a reserved field name' });
  if (errors.length > 0) return { code: 'validation_failed', errors };
  const refErrors = await documentReferenceErrors(companyId, documentFieldsOf(type.schema, data));
  if (refErrors.length > 0) return { code: 'invalid_storage_reference', errors: refErrors };
  return undefined;
};

export const assertValid = async (
  companyId: string,
  type: ResolvedType,
  data: Record<string, unknown>,
): Promise<number> => {
  const size = byteSize(data);
  if (size > MAX_DYNADATA_ITEM_BYTES) {
    throw new AppError(
      'payload_too_large',
      `An item may take at most ${MAX_DYNADATA_ITEM_BYTES} bytes of JSON; this one takes ${size}.`,
      { extensions: { maxItemBytes: MAX_DYNADATA_ITEM_BYTES } },
    );
  }
  const problems = await itemProblems(companyId, type, data);
  if (problems?.code === 'validation_failed') throw new ValidationError(problems.errors);
  if (problems) {
    throw new AppError('invalid_storage_reference', 'A document field does not reference a file of yours.', {
      errors: problems.errors,
    });
  }
  return size;
};

const guardOf = (type: ResolvedType): TypeGuard => ({
  ...(type.customTypeVersion === undefined ? {} : { customTypeVersion: type.customTypeVersion }),
  ...(type.indexed.length === 0 ? {} : { indexedFields: type.indexed }),
});

/**
 * The guard of a write of `data`: while a schema change is being checked, whether `data` fails the changed
 * schema too (the write then counts itself on the type, and the change is refused).
 */
export const writeGuardOf = async (type: ResolvedType, data: Record<string, unknown>): Promise<TypeGuard> => {
  const guard = guardOf(type);
  if (!type.change) return guard;
  const breaks = (await validateAgainst(type.change.schema, data, '')).length > 0;
  return { ...guard, change: { token: type.change.token, breaks } };
};

/** Runs a write once with the cached type and once more with a fresh one if the type changed meanwhile. */
const withFreshTypeOnChange = async <T>(
  companyId: string,
  typeName: string,
  write: (type: ResolvedType) => Promise<T>,
): Promise<T> => {
  const type = await resolveType(companyId, typeName);
  requireWritable(type);
  try {
    return await write(type);
  } catch (error) {
    if (!(error instanceof ItemWriteConflictError && error.reason === 'type')) throw error;
    const fresh = await resolveType(companyId, typeName, { fresh: true });
    // The type changed meanwhile: it may have become read-only (a deletion under way).
    requireWritable(fresh);
    return write(fresh);
  }
};

/** How a write was asked for: the workflow hop of its request (0 outside a workflow run). */
export interface WriteOptions {
  hop?: number;
}

/**
 * The guard with the write's hop: stored on the item (`_hop`) so that the change event the event dispatcher
 * raises from the table's stream carries it (`change-stream.ts`).
 */
const withHop = (guard: TypeGuard, options: WriteOptions): TypeGuard =>
  options.hop ? { ...guard, hop: options.hop } : guard;

export const createItem = async (
  companyId: string,
  typeName: string,
  body: Record<string, unknown>,
  now: Date,
  options: WriteOptions = {},
): Promise<PublicItem> => {
  const present = SYSTEM_FIELDS.filter((f) => f in body);
  if (present.length > 0) {
    throw new ValidationError(
      present.map((f) => ({ pointer: `/body/${f}`, message: 'is set by the server and cannot be sent' })),
    );
  }
  return withFreshTypeOnChange(companyId, typeName, async (type) => {
    const size = await assertValid(companyId, type, body);
    const stamp = now.toISOString();
    const id =
      typeName === LOG_ENTRIES_TYPE
        ? `${String(now.getTime()).padStart(15, '0')}-${ulid(now.getTime())}`
        : ulid(now.getTime());
    const data = typeName === LOG_ENTRIES_TYPE ? { ...body } : body;
    const item: StoredItem = { _id: id, _version: 1, createdAt: stamp, updatedAt: stamp, data, size };
    await insertItem(companyId, typeName, item, withHop(await writeGuardOf(type, data), options));
    return toPublicItem(item);
  });
};

export const getItem = async (companyId: string, typeName: string, id: string): Promise<PublicItem> => {
  await resolveType(companyId, typeName);
  const item = await getStoredItem(companyId, typeName, id);
  if (!item) throw new NotFoundError(`There is no ${typeName} item ${id}.`);
  return toPublicItem(item);
};

/** RFC 7396 JSON merge patch: `null` removes a field, objects merge recursively, anything else replaces. */
export const mergePatch = (target: unknown, patch: unknown): unknown => {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const base =
    typeof target === 'object' && target !== null && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete base[k];
    else base[k] = mergePatch(Object.hasOwn(base, k) ? base[k] : undefined, v);
  }
  return base;
};

/** `If-Match` did not hold: the item is not (or no longer) the one the caller read. */
const itemChanged = (typeName: string, id: string): AppError =>
  new AppError('precondition_failed', `The ${typeName} item ${id} does not match If-Match; read it again.`);

/** Refuses the write unless `ifMatch` (the `If-Match` header, when sent) names the stored item's tag. */
const requireIfMatch = (ifMatch: string | undefined, previous: StoredItem, typeName: string): void => {
  if (!ifMatchHolds(ifMatch, etagOf(toPublicItem(previous)))) throw itemChanged(typeName, previous._id);
};

export const updateItem = async (
  companyId: string,
  typeName: string,
  body: Record<string, unknown>,
  now: Date,
  ifMatch?: string,
  options: WriteOptions = {},
): Promise<PublicItem> => {
  const id = body._id;
  const expected = body._version;
  const errors: FieldError[] = [];
  if (typeof id !== 'string' || id === '') errors.push({ pointer: '/body/_id', message: 'is required' });
  if (expected !== undefined && (!Number.isInteger(expected) || (expected as number) < 1))
    errors.push({ pointer: '/body/_version', message: 'must be a positive integer' });
  for (const f of ['createdAt', 'updatedAt'])
    if (f in body) errors.push({ pointer: `/body/${f}`, message: 'is set by the server and cannot be sent' });
  if (errors.length > 0) throw new ValidationError(errors);
  return withFreshTypeOnChange(companyId, typeName, async (type) => {
    const previous = await getStoredItem(companyId, typeName, id as string);
    if (!previous) throw new NotFoundError(`There is no ${typeName} item ${String(id)}.`);
    requireIfMatch(ifMatch, previous, typeName);
    if (expected !== undefined && expected !== previous._version) {
      throw new AppError(
        'conflict',
        `The item is at _version ${previous._version}, not ${String(expected)}.`,
        {
          extensions: { currentVersion: previous._version },
        },
      );
    }
    const data = mergePatch(previous.data, userFields(body)) as Record<string, unknown>;
    const size = await assertValid(companyId, type, data);
    const next: StoredItem = {
      ...previous,
      _version: previous._version + 1,
      updatedAt: now.toISOString(),
      data,
      size: typeName === LOG_ENTRIES_TYPE ? 0 : size,
    };
    const updated = toPublicItem(next);
    try {
      await replaceItem(
        companyId,
        typeName,
        previous,
        next,
        withHop(await writeGuardOf(type, next.data), options),
      );
    } catch (error) {
      if (error instanceof ItemWriteConflictError && error.reason === 'item') {
        if (ifMatch !== undefined) throw itemChanged(typeName, previous._id);
        throw new AppError('conflict', 'The item was changed by another request; read it and try again.');
      }
      throw error;
    }
    return updated;
  });
};

export const deleteItem = async (
  companyId: string,
  typeName: string,
  id: string,
  ifMatch?: string,
  options: WriteOptions & { now?: Date; expectedVersion?: number } = {},
): Promise<{ deleted: true; _id: string; _version: number }> => {
  const type = await resolveType(companyId, typeName);
  requireWritable(type);
  for (let attempt = 0; ; attempt++) {
    const previous = await getStoredItem(companyId, typeName, id);
    if (!previous) throw new NotFoundError(`There is no ${typeName} item ${id}.`);
    requireIfMatch(ifMatch, previous, typeName);
    if (options.expectedVersion !== undefined && options.expectedVersion !== previous._version)
      throw new AppError(
        'conflict',
        `The item is at _version ${previous._version}, not ${options.expectedVersion}.`,
        { extensions: { currentVersion: previous._version } },
      );
    try {
      await removeItem(companyId, typeName, previous, guardOf(type), options.hop ? { hop: options.hop } : {});
      return { deleted: true, _id: id, _version: previous._version };
    } catch (error) {
      // The delete is conditional on the version read: a change since then fails If-Match, never retried past.
      if (error instanceof ItemWriteConflictError && error.reason === 'item' && ifMatch !== undefined)
        throw itemChanged(typeName, id);
      if (!(error instanceof ItemWriteConflictError) || attempt >= 2) throw error;
    }
  }
};

/** An `_id` a caller chooses (upsert): letters, digits, `_` and `-`, starting with a letter or digit. */
export const CALLER_ITEM_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export interface UpsertOptions extends WriteOptions {
  /** `If-Match`: replace only the item with this tag (412 when absent or different). */
  ifMatch?: string | undefined;
  /** `If-None-Match: *`: create only (412 when the item exists). */
  ifNoneMatch?: string | undefined;
  /** Replace only, whatever its tag (412 when the item does not exist). */
  mustExist?: boolean;
}

/** Refuses what an upsert body may not carry: another `_id`, a bad `_version`, the server's times. */
export const upsertBodyErrors = (
  id: string,
  body: Record<string, unknown>,
  ifNoneMatch?: string,
): FieldError[] => {
  const errors: FieldError[] = [];
  if (!CALLER_ITEM_ID.test(id))
    errors.push({ pointer: '/params/_id', message: `must match ${CALLER_ITEM_ID.source}` });
  if ('_id' in body && body._id !== id)
    errors.push({ pointer: '/body/_id', message: 'differs from the path' });
  if (body._version !== undefined && (!Number.isInteger(body._version) || (body._version as number) < 1))
    errors.push({ pointer: '/body/_version', message: 'must be a positive integer' });
  for (const f of ['createdAt', 'updatedAt'])
    if (f in body) errors.push({ pointer: `/body/${f}`, message: 'is set by the server and cannot be sent' });
  if (ifNoneMatch !== undefined && ifNoneMatch.trim() !== '*')
    errors.push({ pointer: '/headers/if-none-match', message: 'must be * (create only)' });
  return errors;
};

/**
 * `PUT …/item/{_id}`: creates the item with the caller's `_id`, or replaces the whole item (its fields are
 * the body's, validated as a whole; `_version` +1, `createdAt` kept). `If-None-Match: *` creates only and
 * `If-Match` replaces only (412 `precondition_failed` otherwise); `_version` in the body is checked like an
 * update's (409 `conflict`). A create and a replace racing for the same id are ordered by their conditional
 * writes: the loser is redone as a replace (or refused, under either header).
 */
export const upsertItem = async (
  companyId: string,
  typeName: string,
  id: string,
  body: Record<string, unknown>,
  now: Date,
  options: UpsertOptions = {},
): Promise<{ created: boolean; item: PublicItem }> => {
  const errors = upsertBodyErrors(id, body, options.ifNoneMatch);
  if (errors.length > 0) throw new ValidationError(errors);
  const createOnly = options.ifNoneMatch !== undefined;
  const data = userFields(body);
  return withFreshTypeOnChange(companyId, typeName, async (type) => {
    const size = await assertValid(companyId, type, data);
    const guard = withHop(await writeGuardOf(type, data), options);
    for (let attempt = 0; ; attempt++) {
      const previous = await getStoredItem(companyId, typeName, id);
      const stamp = now.toISOString();
      try {
        if (!previous) {
          if (options.ifMatch !== undefined || options.mustExist) throw itemChanged(typeName, id);
          const item: StoredItem = { _id: id, _version: 1, createdAt: stamp, updatedAt: stamp, data, size };
          await insertItem(companyId, typeName, item, guard);
          return { created: true, item: toPublicItem(item) };
        }
        if (createOnly)
          throw new AppError('precondition_failed', `The ${typeName} item ${id} exists (If-None-Match: *).`);
        requireIfMatch(options.ifMatch, previous, typeName);
        if (body._version !== undefined && body._version !== previous._version)
          throw new AppError(
            'conflict',
            `The item is at _version ${previous._version}, not ${String(body._version)}.`,
            {
              extensions: { currentVersion: previous._version },
            },
          );
        const next: StoredItem = {
          ...previous,
          _version: previous._version + 1,
          updatedAt: stamp,
          data,
          size,
        };
        await replaceItem(companyId, typeName, previous, next, guard);
        return { created: false, item: toPublicItem(next) };
      } catch (error) {
        if (!(error instanceof ItemWriteConflictError && error.reason === 'item')) throw error;
        // Created or changed meanwhile: under a header the caller's precondition no longer holds.
        if (createOnly || options.ifMatch !== undefined || body._version !== undefined || attempt >= 2)
          throw createOnly
            ? new AppError('precondition_failed', `The ${typeName} item ${id} exists (If-None-Match: *).`)
            : options.ifMatch !== undefined
              ? itemChanged(typeName, id)
              : new AppError('conflict', 'The item was changed by another request; read it and try again.');
      }
    }
  });
};

/** Validates a whole item without writing: `{valid, errors}` with every violation. */
export const validateItem = async (
  companyId: string,
  typeName: string,
  body: Record<string, unknown>,
): Promise<{ valid: boolean; errors: FieldError[] }> => {
  const type = await resolveType(companyId, typeName);
  const data = userFields(body);
  const errors: FieldError[] = [];
  const size = byteSize(data);
  if (size > MAX_DYNADATA_ITEM_BYTES)
    errors.push({ pointer: '/body', message: `exceeds ${MAX_DYNADATA_ITEM_BYTES} bytes` });
  errors.push(...((await itemProblems(companyId, type, data))?.errors ?? []));
  return { valid: errors.length === 0, errors };
};
