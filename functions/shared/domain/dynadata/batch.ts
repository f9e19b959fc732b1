import {
  BatchWriteConflictError,
  getStoredItem,
  type ItemWrite,
  type StoredItem,
  writeItemsAtomically,
} from '../../data/dynadata-items';
import { MeterThrottledError } from '../../data/throttling';
import { addToMeter, MeterLimitReachedError } from '../../data/usage-meters';
import { AppError, ERROR_CATALOG, type FieldError, NotFoundError, ValidationError } from '../../errors';
import { ulid } from '../../ids';
import { MAX_ATOMIC_BATCH_OPERATIONS } from '../../types/dynadata-types';
import { apiRequestsQuotaError, meterThrottledError } from '../usage';
import {
  assertValid,
  createItem,
  deleteItem,
  mergePatch,
  type PublicItem,
  toPublicItem,
  updateItem,
  upsertBodyErrors,
  upsertItem,
  userFields,
  writeGuardOf,
} from './items';
import { type ResolvedType, requireWritable, resolveType } from './types';

/**
 * `POST /v1/dynadata/type/{type}/batch`: up to 100 writes of items of one type, in order.
 *
 * - By default each operation is written on its own, exactly as its single route would (create, update,
 *   upsert, delete: the same checks, the same change event), and answers a result: the status its route would
 *   answer, `_id`, `_version`, and the problem when refused (pointers rooted at the operation:
 *   `/body/operations/3/item/total`). A refused operation does not stop the others.
 * - `atomic: true` writes all or nothing in one DynamoDB transaction: at most 49 operations (the bound kept
 *   from when each item's event was an action too; the transaction now holds the items and, for a custom type,
 *   its counter: decision 0063), each item once, 3.5 MB of items at most. The first operation refused answers its own problem, with
 *   `operation` (its index), and nothing is written.
 *
 * A batch counts one API request per operation against the month's allowance, checked before any write (the
 * request itself counted one already).
 */
export type BatchOperation =
  | { op: 'create'; item: Record<string, unknown> }
  | { op: 'update'; item: Record<string, unknown> & { _id: string; _version?: number | undefined } }
  | {
      op: 'upsert';
      _id: string;
      item: Record<string, unknown>;
      onlyIf?: 'absent' | 'exists' | undefined;
    }
  | { op: 'delete'; _id: string; _version?: number | undefined };

export interface BatchResult {
  op: BatchOperation['op'];
  status: number;
  _id: string | null;
  _version: number | null;
  problem: ReturnType<typeof problemOf> | null;
}

/** The most bytes of items an atomic batch writes (DynamoDB: 4 MB a transaction). */
const MAX_ATOMIC_BYTES = 3_500_000;

/** The error with its pointers rooted at operation `index` of the batch. */
const withinOperation = (error: AppError, index: number, op: BatchOperation): AppError => {
  const root = `/body/operations/${index}`;
  const moved = error.errors?.map(
    (e): FieldError => ({
      ...e,
      pointer: e.pointer.startsWith('/params/_id')
        ? `${root}/_id`
        : e.pointer.startsWith('/body')
          ? `${root}${op.op === 'delete' ? '' : '/item'}${e.pointer.slice('/body'.length)}`
          : `${root}${e.pointer}`,
    }),
  );
  return new AppError(error.code, error.message, {
    ...(moved ? { errors: moved } : {}),
    extensions: { ...error.extensions, operation: index },
  });
};

function problemOf(error: AppError) {
  return {
    type: `urn:problem-type:${error.code}`,
    title: ERROR_CATALOG[error.code].title,
    status: error.status,
    code: error.code,
    detail: error.message,
    ...error.extensions,
    ...(error.errors ? { errors: error.errors } : {}),
  };
}

/** Counts the batch's operations beyond the request itself against the month's `api_requests`. */
const meterOperations = async (
  companyId: string,
  operations: number,
  limit: number | undefined,
  now: Date,
): Promise<void> => {
  if (operations <= 1) return;
  try {
    await addToMeter(companyId, 'api_requests', operations - 1, now, limit);
  } catch (error) {
    if (error instanceof MeterLimitReachedError) throw apiRequestsQuotaError(limit, now);
    if (error instanceof MeterThrottledError) throw meterThrottledError();
    throw error;
  }
};

const writeOne = async (
  companyId: string,
  typeName: string,
  op: BatchOperation,
  now: Date,
  hop: number,
): Promise<{ status: number; item: Pick<PublicItem, '_id' | '_version'> }> => {
  switch (op.op) {
    case 'create':
      return { status: 201, item: await createItem(companyId, typeName, op.item, now, { hop }) };
    case 'update':
      return { status: 200, item: await updateItem(companyId, typeName, op.item, now, undefined, { hop }) };
    case 'upsert': {
      const { created, item } = await upsertItem(companyId, typeName, op._id, op.item, now, {
        hop,
        ...(op.onlyIf === 'absent' ? { ifNoneMatch: '*' } : {}),
        ...(op.onlyIf === 'exists' ? { mustExist: true } : {}),
      });
      return { status: created ? 201 : 200, item };
    }
    case 'delete': {
      const deleted = await deleteItem(companyId, typeName, op._id, undefined, {
        hop,
        now,
        ...(op._version === undefined ? {} : { expectedVersion: op._version }),
      });
      return { status: 200, item: { _id: op._id, _version: deleted._version } };
    }
  }
};

/** Each operation on its own, in order: a result for each. */
const writeEach = async (
  companyId: string,
  typeName: string,
  operations: readonly BatchOperation[],
  now: Date,
  hop: number,
): Promise<BatchResult[]> => {
  // The type must exist and be writable: otherwise the whole batch is refused as a single write would be.
  requireWritable(await resolveType(companyId, typeName));
  const results: BatchResult[] = [];
  for (const [index, op] of operations.entries()) {
    try {
      const { status, item } = await writeOne(companyId, typeName, op, now, hop);
      results.push({ op: op.op, status, _id: item._id, _version: item._version, problem: null });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const refused = withinOperation(error, index, op);
      results.push({
        op: op.op,
        status: refused.status,
        _id: idOf(op) ?? null,
        _version: null,
        problem: problemOf(refused),
      });
    }
  }
  return results;
};

interface Prepared {
  write: ItemWrite;
  after: PublicItem;
  status: number;
}

const SERVER_FIELDS = ['_id', '_version', 'createdAt', 'updatedAt'];
const SERVER_TIMES = ['createdAt', 'updatedAt'];

/** What one operation of an atomic batch writes, checked as its single route would check it. */
const prepare = async (
  companyId: string,
  type: ResolvedType,
  op: BatchOperation,
  previous: StoredItem | undefined,
  now: Date,
): Promise<Prepared> => {
  const stamp = now.toISOString();
  const name = type.name;
  const missing = (id: string) => new NotFoundError(`There is no ${name} item ${id}.`);
  const stale = (current: StoredItem, expected: unknown) =>
    new AppError('conflict', `The item is at _version ${current._version}, not ${String(expected)}.`, {
      extensions: { currentVersion: current._version },
    });
  // The checks of the single routes that precede any read: an upsert's id and body, an update's body.
  const bodyErrors =
    op.op === 'upsert'
      ? upsertBodyErrors(op._id, op.item)
      : op.op === 'update'
        ? SERVER_TIMES.filter((f) => f in op.item).map((f) => ({
            pointer: `/body/${f}`,
            message: 'is set by the server and cannot be sent',
          }))
        : [];
  if (bodyErrors.length > 0) throw new ValidationError(bodyErrors);
  if (op.op === 'create' || (op.op === 'upsert' && !previous)) {
    const fields = op.op === 'create' ? op.item : userFields(op.item);
    const sent = op.op === 'create' ? SERVER_FIELDS.filter((f) => f in fields) : [];
    if (sent.length > 0)
      throw new ValidationError(
        sent.map((f) => ({ pointer: `/body/${f}`, message: 'is set by the server' })),
      );
    if (op.op === 'upsert' && op.onlyIf === 'exists') throw missing(op._id);
    const size = await assertValid(companyId, type, fields);
    const item: StoredItem = {
      _id: op.op === 'upsert' ? op._id : ulid(now.getTime()),
      _version: 1,
      createdAt: stamp,
      updatedAt: stamp,
      data: fields,
      size,
    };
    return {
      write: { kind: 'insert', item },
      after: toPublicItem(item),
      status: 201,
    };
  }
  const id = op.op === 'update' ? op.item._id : op._id;
  if (!previous) throw missing(id);
  if (op.op === 'delete') {
    if (op._version !== undefined && op._version !== previous._version) throw stale(previous, op._version);
    return {
      write: { kind: 'remove', previous },
      after: toPublicItem(previous),
      status: 200,
    };
  }
  if (op.op === 'upsert' && op.onlyIf === 'absent')
    throw new AppError('precondition_failed', `The ${name} item ${id} exists.`);
  const expected = op.item._version;
  if (expected !== undefined && expected !== previous._version) throw stale(previous, expected);
  const data =
    op.op === 'update'
      ? (mergePatch(previous.data, userFields(op.item)) as Record<string, unknown>)
      : userFields(op.item);
  const size = await assertValid(companyId, type, data);
  const next: StoredItem = { ...previous, _version: previous._version + 1, updatedAt: stamp, data, size };
  return {
    write: { kind: 'replace', previous, next },
    after: toPublicItem(next),
    status: 200,
  };
};

const byteLength = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** The fields a write leaves (a delete: those it removes). */
const writtenData = (write: ItemWrite): Record<string, unknown> =>
  write.kind === 'insert'
    ? write.item.data
    : write.kind === 'replace'
      ? write.next.data
      : write.previous.data;

/** The item an operation names (a create names none: its id is new). */
const idOf = (op: BatchOperation): string | undefined =>
  op.op === 'create' ? undefined : op.op === 'update' ? op.item._id : op._id;

/** The ids an atomic batch reads first; an item named twice is refused (a transaction writes it once). */
const touchedIds = (operations: readonly BatchOperation[]): string[] => {
  const errors: FieldError[] = [];
  const firstOf = new Map<string, number>();
  for (const [i, op] of operations.entries()) {
    const id = idOf(op);
    if (id === undefined) continue;
    const first = firstOf.get(id);
    if (first === undefined) firstOf.set(id, i);
    else
      errors.push({
        pointer: `/body/operations/${i}/${op.op === 'update' ? 'item/_id' : '_id'}`,
        message: `repeats the item of operation ${first}: an atomic batch writes each item once`,
      });
  }
  if (errors.length > 0) throw new ValidationError(errors);
  return [...firstOf.keys()];
};

/** All or nothing: one transaction, after every operation was checked. */
const writeAll = async (
  companyId: string,
  typeName: string,
  operations: readonly BatchOperation[],
  now: Date,
  hop: number,
): Promise<BatchResult[]> => {
  const ids = touchedIds(operations);
  for (let attempt = 0; ; attempt++) {
    const type = await resolveType(companyId, typeName, attempt > 0 ? { fresh: true } : {});
    requireWritable(type);
    const read = new Map<string, StoredItem>();
    for (const item of await Promise.all(ids.map((id) => getStoredItem(companyId, typeName, id))))
      if (item) read.set(item._id, item);
    const prepared: Prepared[] = [];
    for (const [index, op] of operations.entries()) {
      const id = idOf(op);
      try {
        prepared.push(await prepare(companyId, type, op, id === undefined ? undefined : read.get(id), now));
      } catch (error) {
        throw error instanceof AppError ? withinOperation(error, index, op) : error;
      }
    }
    const guards = await Promise.all(prepared.map((p) => writeGuardOf(type, writtenData(p.write))));
    const breaks = guards.some((g) => g.change?.breaks);
    const guard = {
      ...guards[0],
      ...(guards[0]?.change ? { change: { ...guards[0].change, breaks } } : {}),
      ...(hop > 0 ? { hop } : {}),
    };
    const bytes = prepared.reduce((sum, p) => sum + (p.write.kind === 'remove' ? 0 : byteLength(p.after)), 0);
    if (bytes > MAX_ATOMIC_BYTES)
      throw new AppError(
        'payload_too_large',
        `An atomic batch writes at most ${MAX_ATOMIC_BYTES} bytes of items; this one ${bytes}.`,
      );
    try {
      await writeItemsAtomically(
        companyId,
        typeName,
        prepared.map((p) => p.write),
        guard,
      );
      return prepared.map((p, i) => ({
        op: operations[i]?.op ?? 'create',
        status: p.status,
        _id: p.after._id,
        _version: p.after._version,
        problem: null,
      }));
    } catch (error) {
      if (!(error instanceof BatchWriteConflictError) || attempt >= 2) {
        if (error instanceof BatchWriteConflictError)
          throw new AppError('conflict', 'Items of the batch were changed by other requests; try again.', {
            extensions: { operation: Math.min(error.index, operations.length - 1) },
          });
        throw error;
      }
    }
  }
};

export const writeBatch = async (
  companyId: string,
  typeName: string,
  body: { operations: readonly BatchOperation[]; atomic?: boolean | undefined },
  context: { now: Date; hop: number; apiRequestsPerMonth: number | undefined },
): Promise<{ atomic: boolean; results: BatchResult[]; written: number; failed: number }> => {
  const atomic = body.atomic === true;
  if (atomic && body.operations.length > MAX_ATOMIC_BATCH_OPERATIONS)
    throw new ValidationError([
      {
        pointer: '/body/operations',
        message: `an atomic batch takes at most ${MAX_ATOMIC_BATCH_OPERATIONS} operations`,
      },
    ]);
  await meterOperations(companyId, body.operations.length, context.apiRequestsPerMonth, context.now);
  const results = atomic
    ? await writeAll(companyId, typeName, body.operations, context.now, context.hop)
    : await writeEach(companyId, typeName, body.operations, context.now, context.hop);
  const failed = results.filter((r) => r.problem !== null).length;
  return { atomic, results, written: results.length - failed, failed };
};
