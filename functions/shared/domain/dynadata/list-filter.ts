import type { ItemQuery } from '../../data/dynadata-item-queries';
import { indexValue, LOG_ENTRIES_TYPE } from '../../data/dynadata-items';
import { type FieldError, ValidationError } from '../../errors';
import {
  type ListFilter,
  type ListFilterCondition,
  MAX_FILTER_DEPTH,
  MAX_FILTER_TERMS,
} from './list-request';
import type { ResolvedType } from './types';

/**
 * The list filter compiled into DynamoDB expressions. A filter is an object of conditions, ANDed:
 * `{ <field>: <value> | { eq, ne, gt, gte, lt, lte, in, exists, prefix, contains } }` on top-level fields of
 * the type and on `_id`, `createdAt`, `updatedAt`, plus the logical groups `_and: [filter, …]`,
 * `_or: [filter, …]` and `_not: filter` (field names never start with `_`, so no field is shadowed). Groups
 * nest up to `MAX_FILTER_DEPTH` levels and a filter holds at most `MAX_FILTER_TERMS` conditions, so compiling
 * is linear in the filter's size and the expression stays within DynamoDB's 4 KB.
 *
 * Only conditions that hold for every answered item narrow the key range: those of the top level and of
 * `_and` groups reached through `_and` only (never under `_or` or `_not`). There, `_id` ranges (and `time`
 * ranges of `log_entries`) become the key condition of the partition, and ranges of the indexed field a list
 * sorts by that of the index; everything else is a filter expression (with parentheses) that DynamoDB
 * evaluates on the items of the key range. Field names reach DynamoDB only as expression attribute names,
 * never as expression text.
 */
const SYSTEM_FILTER_FIELDS = ['_id', 'createdAt', 'updatedAt'];

interface Compiled {
  keyCondition?: ItemQuery['keyCondition'];
  /** The inclusive sort-key bounds the key condition holds (`log_entries` merges its partitions by them). */
  range?: { lower?: string; upper?: string };
  filter?: NonNullable<ItemQuery['filter']>;
}

const OPS: Record<string, string> = { eq: '=', ne: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' };

const LOG_ID_OPS = ['eq', 'gt', 'gte', 'lt', 'lte', 'prefix'];

/** Sort key (or sort-key prefix) of a log entry `_id` (or `_id` prefix): `<15 digits>-<id>` → `<15 digits>#<id>`. */
const logSortKeyOfId = (id: string): string => (id[15] === '-' ? `${id.slice(0, 15)}#${id.slice(16)}` : id);

const escapePointer = (key: string): string => key.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * The JSON Schema `type` of a top-level field as a list: its `type`, else that of its `enum` or `const` values
 * (`{enum: ["open", "closed"]}` is a string field), else empty.
 */
const declaredTypes = (type: ResolvedType, field: string): string[] => {
  if (SYSTEM_FILTER_FIELDS.includes(field)) return ['string'];
  const own = (
    (type.schema.properties ?? {}) as Record<string, { type?: unknown; enum?: unknown; const?: unknown }>
  )[field];
  if (Array.isArray(own?.type)) return own.type as string[];
  if (typeof own?.type === 'string') return [own.type];
  const values = Array.isArray(own?.enum) ? own.enum : own && 'const' in own ? [own.const] : [];
  return [...new Set(values.map((v) => (Array.isArray(v) ? 'array' : typeof v)))];
};

/** Compiles the filter into a key condition (id, time or index range) and a filter expression. */
export const compileFilter = (
  type: ResolvedType,
  filter: ListFilter | undefined,
  /** The indexed field a list sorts by (its index is queried), or undefined for the type's partition. */
  sortField?: string,
): Compiled => {
  const errors: FieldError[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const nameOf = new Map<string, string>();
  let valueCount = 0;
  let lower: string | undefined;
  let upper: string | undefined;
  let beginsWith: string | undefined;
  let terms = 0;
  const fields = Object.keys((type.schema.properties ?? {}) as Record<string, unknown>);
  const isLog = type.name === LOG_ENTRIES_TYPE;
  const useIndex = sortField !== undefined;

  const attr = (name: string): string => {
    let ref = nameOf.get(name);
    if (!ref) {
      ref = `#a${nameOf.size}`;
      nameOf.set(name, ref);
      names[ref] = name;
    }
    return ref;
  };
  const value = (v: unknown): string => {
    const ref = `:v${valueCount++}`;
    values[ref] = v;
    return ref;
  };
  const narrowLower = (key: string) => {
    if (lower === undefined || key > lower) lower = key;
  };
  const narrowUpper = (key: string) => {
    if (upper === undefined || key < upper) upper = key;
  };
  const tooMany = () =>
    new ValidationError([
      {
        pointer: '/body/filter',
        message: `holds more than ${MAX_FILTER_TERMS} conditions (each operator counts one, an in one per value); split the query`,
      },
    ]);

  /** A log entry `_id` condition: the key range at a conjunctive place, the `sk` attribute elsewhere. */
  const logId = (condition: ListFilterCondition, pointer: string, conjunctive: boolean): string[] => {
    const clauses: string[] = [];
    for (const [op, v] of Object.entries(condition)) {
      if (v === undefined) continue;
      if (!LOG_ID_OPS.includes(op)) {
        errors.push({
          pointer: `${pointer}/${op}`,
          message: `on log_entries _id use ${LOG_ID_OPS.join(', ')}`,
        });
        continue;
      }
      if (typeof v !== 'string') {
        errors.push({ pointer: `${pointer}/${op}`, message: 'must be a string' });
        continue;
      }
      const key = logSortKeyOfId(v);
      if (!conjunctive) {
        // The `sk` attribute compares as the `_id` does (the separator sits at the same place in every id).
        const sk = attr('sk');
        clauses.push(
          op === 'prefix' ? `begins_with(${sk}, ${value(key)})` : `${sk} ${OPS[op]} ${value(key)}`,
        );
        continue;
      }
      const from = op === 'gt' ? `${key}\u0000` : key;
      const to = op === 'prefix' ? `${key}\uffff` : key;
      if (op !== 'lt' && op !== 'lte') narrowLower(from);
      if (op !== 'gt' && op !== 'gte') narrowUpper(to);
      // `lt` excludes the one entry whose sort key is the bound itself (request ids are unique).
      const full = /^\d{15}#(.+)$/.exec(key);
      if (op === 'lt' && full?.[1]) clauses.push(`${attr('requestId')} <> ${value(full[1])}`);
    }
    return clauses;
  };

  /** Narrows the key range by a condition on the partition's sort key (`_id`, a log entry's time). */
  const keyRange = (op: string, v: unknown, pointer: string) => {
    if (!['gt', 'gte', 'lt', 'lte', 'eq', 'prefix'].includes(op)) return;
    if (op === 'prefix') {
      if (!isLog) beginsWith = String(v);
      return;
    }
    let key = String(v);
    if (isLog) {
      const ms = typeof v === 'string' ? Date.parse(v) : Number.NaN;
      if (Number.isNaN(ms)) {
        errors.push({ pointer, message: 'must be a date-time' });
        return;
      }
      key = String(ms).padStart(15, '0');
    }
    if (op !== 'lt' && op !== 'lte') narrowLower(key);
    if (op !== 'gt' && op !== 'gte') narrowUpper(isLog ? `${key}#\uffff` : key);
  };

  /**
   * Narrows the index range by a condition on the indexed field a list sorts by (`gsiNsk` is
   * `<indexValue>#<_id>`): numbers (fixed width) by every comparison, strings by their lower bound and prefix
   * only (a string's `#` separator does not keep shorter strings below longer ones).
   */
  const indexRange = (op: string, v: unknown) => {
    const iv = indexValue(v);
    if (iv === undefined) return;
    if (typeof v === 'number') {
      if (op === 'gt' || op === 'lte') (op === 'gt' ? narrowLower : narrowUpper)(`${iv}#\uffff`);
      if (op === 'gte' || op === 'lt') (op === 'gte' ? narrowLower : narrowUpper)(`${iv}#`);
      if (op === 'eq') {
        narrowLower(`${iv}#`);
        narrowUpper(`${iv}#\uffff`);
      }
    } else if (op === 'gt' || op === 'gte' || op === 'eq') narrowLower(iv);
    else if (op === 'prefix') beginsWith = iv;
  };

  const leaf = (field: string, raw: unknown, pointer: string, conjunctive: boolean): string[] => {
    if (!fields.includes(field) && !SYSTEM_FILTER_FIELDS.includes(field)) {
      errors.push({
        pointer,
        message: `is not a field of ${type.name} (groups are _and, _or and _not)`,
      });
      return [];
    }
    const condition: ListFilterCondition =
      typeof raw === 'object' && raw !== null && !Array.isArray(raw)
        ? (raw as ListFilterCondition)
        : { eq: raw as string | number | boolean | null };
    const ops = Object.entries(condition).filter(([, v]) => v !== undefined);
    if (ops.length === 0) errors.push({ pointer, message: 'needs at least one operator' });
    for (const [op, v] of ops) terms += op === 'in' ? (v as unknown[]).length : 1;
    if (terms > MAX_FILTER_TERMS) throw tooMany();
    if (isLog && field === '_id') return logId(condition, pointer, conjunctive);
    // Attribute path of the field in the stored item.
    const path = isLog
      ? attr(field === 'createdAt' || field === 'updatedAt' ? 'time' : field)
      : SYSTEM_FILTER_FIELDS.includes(field)
        ? attr(field)
        : `${attr('data')}.${attr(field)}`;
    const keyField =
      conjunctive &&
      !useIndex &&
      ((isLog && (field === 'time' || field === 'createdAt')) || (!isLog && field === '_id'));
    const clauses: string[] = [];
    for (const [op, v] of ops) {
      if (keyField) keyRange(op, v, `${pointer}/${op}`);
      if (conjunctive && useIndex && field === sortField) indexRange(op, v);
      if (Object.hasOwn(OPS, op)) clauses.push(`${path} ${OPS[op]} ${value(v)}`);
      else if (op === 'in') clauses.push(`${path} IN (${(v as unknown[]).map(value).join(', ')})`);
      else if (op === 'exists')
        clauses.push(v ? `attribute_exists(${path})` : `attribute_not_exists(${path})`);
      else if (op === 'prefix') clauses.push(`begins_with(${path}, ${value(v)})`);
      else if (op === 'contains') {
        const declared = declaredTypes(type, field);
        if (!declared.includes('string') && !declared.includes('array')) {
          errors.push({
            pointer: `${pointer}/contains`,
            message: `${field} is neither a string nor an array field; contains needs one`,
          });
        } else if (!declared.includes('array') && typeof v !== 'string') {
          errors.push({ pointer: `${pointer}/contains`, message: 'must be a string (a substring)' });
        } else clauses.push(`contains(${path}, ${value(v)})`);
      }
    }
    return clauses;
  };

  /** The clauses of one filter object, ANDed; `conjunctive` when every answered item must satisfy it. */
  const node = (f: ListFilter, pointer: string, level: number, conjunctive: boolean): string[] => {
    if (level > MAX_FILTER_DEPTH) {
      errors.push({ pointer, message: `nests deeper than ${MAX_FILTER_DEPTH} levels; flatten the filter` });
      return [];
    }
    const entries = Object.entries(f).filter(([, v]) => v !== undefined);
    if (entries.length === 0 && level > 1) errors.push({ pointer, message: 'needs at least one condition' });
    const clauses: string[] = [];
    for (const [key, raw] of entries) {
      const at = `${pointer}/${escapePointer(key)}`;
      if (key === '_and' || key === '_or') {
        const members = (raw as ListFilter[]).map((member, i) =>
          node(member, `${at}/${i}`, level + 1, conjunctive && key === '_and'),
        );
        if (key === '_and') clauses.push(...members.flat());
        else clauses.push(`(${members.map((m) => m.join(' AND ') || 'attribute_exists(pk)').join(' OR ')})`);
      } else if (key === '_not') {
        const inner = node(raw as ListFilter, at, level + 1, false);
        if (inner.length > 0) clauses.push(`(NOT (${inner.join(' AND ')}))`);
      } else {
        const parts = leaf(key, raw, at, conjunctive);
        clauses.push(...(parts.length > 1 ? [`(${parts.join(' AND ')})`] : parts));
      }
    }
    return clauses;
  };

  const clauses = node(filter ?? {}, '/body/filter', 1, true);
  if (errors.length > 0) throw new ValidationError(errors);
  const compiled: Compiled = {};
  if (isLog && (lower !== undefined || upper !== undefined))
    compiled.range = {
      ...(lower === undefined ? {} : { lower }),
      ...(upper === undefined ? {} : { upper: lower !== undefined && lower > upper ? lower : upper }),
    };
  if (lower !== undefined && upper !== undefined) {
    compiled.keyCondition = {
      expression: '#sk BETWEEN :klo AND :khi',
      values: { ':klo': lower, ':khi': upper },
    };
    if (lower > upper) compiled.keyCondition.values[':khi'] = lower;
  } else if (lower !== undefined)
    compiled.keyCondition = { expression: '#sk >= :klo', values: { ':klo': lower } };
  else if (upper !== undefined)
    compiled.keyCondition = { expression: '#sk <= :khi', values: { ':khi': upper } };
  else if (beginsWith !== undefined)
    compiled.keyCondition = { expression: 'begins_with(#sk, :kpre)', values: { ':kpre': beginsWith } };
  if (clauses.length > 0) compiled.filter = { expression: clauses.join(' AND '), names, values };
  return compiled;
};
