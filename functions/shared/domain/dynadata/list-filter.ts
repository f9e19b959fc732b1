import { type ItemQuery, LOG_ENTRIES_TYPE } from '../../data/dynadata-items';
import { type FieldError, ValidationError } from '../../errors';
import type { ListFilter, ListFilterCondition } from './list-request';
import type { ResolvedType } from './types';

/**
 * The list filter compiled into DynamoDB expressions: `{ <field>: <value> | { eq, ne, gt, gte, lt, lte, in,
 * exists, prefix } }` on top-level fields of the type and on `_id`, `createdAt`, `updatedAt`, ANDed. `_id`
 * ranges (and `time` ranges of `log_entries`) become the key condition; the rest a filter expression that
 * DynamoDB evaluates on the items of the key range. Field names reach DynamoDB only as expression attribute
 * names, never as expression text.
 */
const SYSTEM_FILTER_FIELDS = ['_id', 'createdAt', 'updatedAt'];

interface Compiled {
  keyCondition?: ItemQuery['keyCondition'];
  filter?: NonNullable<ItemQuery['filter']>;
}

const OPS: Record<string, string> = { eq: '=', ne: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' };

const epochKey = (iso: unknown, pointer: string, errors: FieldError[]): string | undefined => {
  const ms = typeof iso === 'string' ? Date.parse(iso) : Number.NaN;
  if (Number.isNaN(ms)) {
    errors.push({ pointer, message: 'must be a date-time' });
    return undefined;
  }
  return String(ms).padStart(15, '0');
};

const LOG_ID_OPS = ['eq', 'gt', 'gte', 'lt', 'lte', 'prefix'];

/** Sort key (or sort-key prefix) of a log entry `_id` (or `_id` prefix): `<15 digits>-<id>` → `<15 digits>#<id>`. */
const logSortKeyOfId = (id: string): string => (id[15] === '-' ? `${id.slice(0, 15)}#${id.slice(16)}` : id);

/** Compiles the filter into a key condition (id or time range) and a filter expression. */
export const compileFilter = (
  type: ResolvedType,
  filter: ListFilter | undefined,
  useIndex: boolean,
): Compiled => {
  const errors: FieldError[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const clauses: string[] = [];
  let lower: string | undefined;
  let upper: string | undefined;
  let beginsWith: string | undefined;
  const fields = Object.keys((type.schema.properties ?? {}) as Record<string, unknown>);
  const isLog = type.name === LOG_ENTRIES_TYPE;
  let n = 0;
  for (const [field, raw] of Object.entries(filter ?? {})) {
    const pointer = `/body/filter/${field.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    if (!fields.includes(field) && !SYSTEM_FILTER_FIELDS.includes(field)) {
      errors.push({ pointer, message: `is not a field of ${type.name}` });
      continue;
    }
    const condition: ListFilterCondition =
      typeof raw === 'object' && raw !== null ? raw : { eq: raw as string | number | boolean | null };
    if (Object.keys(condition).length === 0) errors.push({ pointer, message: 'needs at least one operator' });
    if (isLog && field === '_id') {
      // A log entry's `_id` is its sort key (`-` for `#`), which only a key condition may compare.
      for (const [op, value] of Object.entries(condition)) {
        if (value === undefined) continue;
        if (!LOG_ID_OPS.includes(op)) {
          errors.push({
            pointer: `${pointer}/${op}`,
            message: `on log_entries _id use ${LOG_ID_OPS.join(', ')}`,
          });
          continue;
        }
        if (typeof value !== 'string') {
          errors.push({ pointer: `${pointer}/${op}`, message: 'must be a string' });
          continue;
        }
        const key = logSortKeyOfId(value);
        const from = op === 'gt' ? `${key}\u0000` : key;
        const to = op === 'prefix' ? `${key}\uffff` : key;
        if (op !== 'lt' && op !== 'lte') lower = lower === undefined || from > lower ? from : lower;
        if (op !== 'gt' && op !== 'gte') upper = upper === undefined || to < upper ? to : upper;
        // `lt` excludes the one entry whose sort key is the bound itself (request ids are unique).
        const full = /^\d{15}#(.+)$/.exec(key);
        if (op === 'lt' && full?.[1]) {
          names['#rid'] = 'requestId';
          values[`:v${n}_lt`] = full[1];
          clauses.push(`#rid <> :v${n}_lt`);
        }
      }
      n++;
      continue;
    }
    // Attribute path of the field in the stored item.
    let path: string;
    if (isLog) {
      const attr = field === 'createdAt' || field === 'updatedAt' ? 'time' : field;
      names[`#f${n}`] = attr;
      path = `#f${n}`;
    } else if (SYSTEM_FILTER_FIELDS.includes(field)) {
      names[`#f${n}`] = field;
      path = `#f${n}`;
    } else {
      names['#data'] = 'data';
      names[`#f${n}`] = field;
      path = `#data.#f${n}`;
    }
    // Key ranges: `_id` of items, `time` (and the timestamps) of log entries.
    const keyField =
      !useIndex && ((isLog && (field === 'time' || field === 'createdAt')) || (!isLog && field === '_id'));
    for (const [op, value] of Object.entries(condition)) {
      if (value === undefined) continue;
      const v = `:v${n}_${op}`;
      if (Object.hasOwn(OPS, op)) {
        clauses.push(`${path} ${OPS[op]} ${v}`);
        values[v] = value;
        if (keyField && ['gt', 'gte', 'lt', 'lte', 'eq'].includes(op)) {
          const key = isLog ? epochKey(value, `${pointer}/${op}`, errors) : String(value);
          if (key !== undefined) {
            if (op !== 'lt' && op !== 'lte') lower = lower === undefined || key > lower ? key : lower;
            if (op !== 'gt' && op !== 'gte') {
              const top = isLog ? `${key}#\uffff` : key;
              upper = upper === undefined || top < upper ? top : upper;
            }
          }
        }
      } else if (op === 'in') {
        const list = value as unknown[];
        const refs = list.map((item, i) => {
          values[`${v}${i}`] = item;
          return `${v}${i}`;
        });
        clauses.push(`${path} IN (${refs.join(', ')})`);
      } else if (op === 'exists') {
        clauses.push(value ? `attribute_exists(${path})` : `attribute_not_exists(${path})`);
      } else if (op === 'prefix') {
        clauses.push(`begins_with(${path}, ${v})`);
        values[v] = value;
        if (keyField && !isLog) beginsWith = String(value);
      }
    }
    n++;
  }
  if (errors.length > 0) throw new ValidationError(errors);
  const compiled: Compiled = {};
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
