import { canonical } from '../../canonical-json';
import type { StepCondition } from '../../types/workflows';
import { type ReferenceScope, resolveReferences } from './references';

/**
 * A step's `if`: a small declarative condition, never code. One operator per object:
 * `{ "eq": [a, b] }`, `{ "ne": [a, b] }` (deep equality of JSON values), `{ "in": [a, list] }` (a equals an
 * element of the list), `{ "exists": a }` (a is neither missing nor null), `{ "and": [c, …] }`,
 * `{ "or": [c, …] }` (1 to 20 conditions), `{ "not": c }`. Operands are any JSON value; a string that is
 * exactly one `{{ reference }}` takes the referenced value with its type, as in `with`. A missing value
 * (an absent key, a failed step's output) is unequal to everything but another missing value.
 */
export const CONDITION_OPERATORS = ['eq', 'ne', 'in', 'exists', 'and', 'or', 'not'] as const;
const MAX_OPERANDS = 20;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Every problem of a condition, by JSON pointer; `operands` checks the references of each operand (the
 * caller knows which steps come earlier).
 */
export const conditionProblems = (
  condition: unknown,
  pointer: string,
  add: (pointer: string, message: string) => void,
  operands: (value: unknown, pointer: string) => void,
): void => {
  const keys = isObject(condition) ? Object.keys(condition) : [];
  const [op] = keys;
  if (
    !isObject(condition) ||
    keys.length !== 1 ||
    !(CONDITION_OPERATORS as readonly string[]).includes(op ?? '')
  ) {
    add(pointer, `must be an object with exactly one of ${CONDITION_OPERATORS.join(', ')}`);
    return;
  }
  const at = `${pointer}/${op}`;
  const value = condition[op as string];
  if (op === 'eq' || op === 'ne' || op === 'in') {
    if (!Array.isArray(value) || value.length !== 2) add(at, 'must be a list of two operands');
    else
      value.forEach((v, i) => {
        operands(v, `${at}/${i}`);
      });
  } else if (op === 'exists') {
    operands(value, at);
  } else if (op === 'not') {
    conditionProblems(value, at, add, operands);
  } else if (!Array.isArray(value) || value.length < 1 || value.length > MAX_OPERANDS) {
    add(at, `must be a list of 1 to ${MAX_OPERANDS} conditions`);
  } else {
    value.forEach((c, i) => {
      conditionProblems(c, `${at}/${i}`, add, operands);
    });
  }
};

const same = (a: unknown, b: unknown): boolean =>
  a === undefined || b === undefined
    ? a === b
    : JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

/** Whether a (valid) condition holds for the values of the run so far. */
export const conditionHolds = (condition: StepCondition, scope: ReferenceScope): boolean => {
  const value = (operand: unknown) => resolveReferences(operand, scope);
  if ('eq' in condition) return same(value(condition.eq[0]), value(condition.eq[1]));
  if ('ne' in condition) return !same(value(condition.ne[0]), value(condition.ne[1]));
  if ('in' in condition) {
    const needle = value(condition.in[0]);
    const list = value(condition.in[1]);
    return Array.isArray(list) && list.some((item) => same(needle, item));
  }
  if ('exists' in condition) {
    const found = value(condition.exists);
    return found !== undefined && found !== null;
  }
  if ('and' in condition) return condition.and.every((c) => conditionHolds(c, scope));
  if ('or' in condition) return condition.or.some((c) => conditionHolds(c, scope));
  return !conditionHolds(condition.not, scope);
};
