import { canonical } from '../../canonical-json';
import { lazy } from '../../lazy';
import { StepOutcomeError } from '../../step-outcomes';
import * as z from '../../zod';
import { type ReferenceScope, referencesIn, resolveReferences } from './references';

const MAX_OPERANDS = 20;
const ORDERED =
  'two numbers, or two ISO 8601 timestamps (`2026-11-28` or `2026-11-28T10:00:00Z`) compared as instants.';
/** An ISO 8601 date, or date and time with seconds optional and a zone (`Z` or an offset). */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;
const PAIR = 'must be a list of two operands';
const CONDITIONS = `must be a list of 1 to ${MAX_OPERANDS} conditions`;

/**
 * A step's `if`: a small declarative condition, never code, declared once here. The definition's rules check
 * it with this schema (`conditionProblems`), the route schemas use this very object (the OpenAPI document
 * publishes it as `WorkflowCondition`) and the evaluator's types are its output. Its description says the
 * grammar; operands are any JSON value, and a string that is exactly one `{{ reference }}` takes the referenced
 * value with its type, as in `with`. A missing value (an absent key, a failed step's output) is unequal to
 * everything but another missing value.
 */
export const conditionSchema = /* @__PURE__ */ lazy(() => {
  const operand = () =>
    z
      .unknown()
      .describe(
        'A JSON value; a string that is exactly one `{{ reference }}` takes the referenced value with its type.',
      );
  const pair = (description: string) =>
    z.array(operand(), { error: PAIR }).length(2, { error: PAIR }).describe(description);
  /** The operators, as the options of the schema name them (one member each). */
  const operators = (): string => condition.options.flatMap((option) => Object.keys(option.shape)).join(', ');
  const condition = z
    .xor(
      [
        z.strictObject({ eq: pair('`[a, b]`: a equals b (deep equality of JSON values).') }),
        z.strictObject({ ne: pair('`[a, b]`: a does not equal b.') }),
        z.strictObject({ in: pair('`[a, list]`: a equals an element of the list.') }),
        z.strictObject({ exists: operand().describe('The value is neither missing nor null.') }),
        z.strictObject({ gt: pair(`\`[a, b]\`: a > b; ${ORDERED}`) }),
        z.strictObject({ gte: pair(`\`[a, b]\`: a ≥ b; ${ORDERED}`) }),
        z.strictObject({ lt: pair(`\`[a, b]\`: a < b; ${ORDERED}`) }),
        z.strictObject({ lte: pair(`\`[a, b]\`: a ≤ b; ${ORDERED}`) }),
        z.strictObject({
          contains: pair(
            '`[a, b]`: the string a contains the string b, or the list a has an element equal to b.',
          ),
        }),
        z.strictObject({ startsWith: pair('`[a, b]`: the string a starts with the string b.') }),
        z.strictObject({
          isEmpty: operand().describe('The value is missing, null, an empty string, list or object.'),
        }),
        z.strictObject({
          get and() {
            return z
              .array(condition, { error: CONDITIONS })
              .min(1, { error: CONDITIONS })
              .max(MAX_OPERANDS, { error: CONDITIONS })
              .describe('Every condition holds.');
          },
        }),
        z.strictObject({
          get or() {
            return z
              .array(condition, { error: CONDITIONS })
              .min(1, { error: CONDITIONS })
              .max(MAX_OPERANDS, { error: CONDITIONS })
              .describe('At least one condition holds.');
          },
        }),
        z.strictObject({
          get not() {
            return condition;
          },
        }),
      ],
      { error: (): string => `must be an object with exactly one of ${operators()}` },
    )
    .describe(
      'Run the step only when this holds, else it is `skipped` (output null). One operator per object: ' +
        '`{"eq": [a, b]}`, `{"ne": [a, b]}`, `{"in": [a, list]}`, `{"exists": a}`, `{"gt": [a, b]}` (also ' +
        '`gte`, `lt`, `lte`: two numbers or two ISO 8601 timestamps), `{"contains": [a, b]}`, ' +
        '`{"startsWith": [a, b]}`, `{"isEmpty": a}`, `{"and": [c, …]}`, ' +
        `\`{"or": [c, …]}\` (1 to ${MAX_OPERANDS} conditions), \`{"not": c}\`. Operands are JSON values or ` +
        '`{{ references }}` to the input and earlier steps; a missing value equals only another missing value, ' +
        'and makes a comparison false. Operands of the wrong type fail the step with ' +
        '`condition_type_mismatch` (refused when the definition is saved where both are written out). No code ' +
        'is evaluated.',
    );
  return condition;
});

/** A condition as the schema answers it: what the evaluator reads. */
export type Condition = z.output<ReturnType<typeof conditionSchema>>;

type Issue = z.ZodError['issues'][number];

const escapeKey = (key: PropertyKey) => String(key).replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * The schema's issues by JSON pointer. An object that names one operator is held to that operator alone: of the
 * options of a failed `xor`, the one whose issues all lie below the object (its operator was recognised) tells
 * what is wrong with it; any other failure is the object's own.
 */
const addIssues = (
  issues: readonly Issue[],
  pointer: string,
  add: (pointer: string, message: string) => void,
) => {
  for (const issue of issues) {
    const at = `${pointer}${issue.path.map((key) => `/${escapeKey(key)}`).join('')}`;
    const named =
      issue.code === 'invalid_union'
        ? issue.errors.filter((option) => option.every((i) => i.path.length > 0))
        : [];
    const [only] = named;
    if (named.length === 1 && only) addIssues(only, at, add);
    else add(at, issue.message);
  }
};

/**
 * Every problem of a condition, by JSON pointer: its shape (`conditionSchema`), then `references`, which checks
 * the references in a value (the caller knows which steps come earlier), for the operands of its well-formed
 * parts (a malformed part is reported once, as such).
 */
export const conditionProblems = (
  condition: unknown,
  pointer: string,
  add: (pointer: string, message: string) => void,
  references: (value: unknown, pointer: string, add: (pointer: string, message: string) => void) => void,
): void => {
  const parsed = conditionSchema().safeParse(condition);
  const malformed: string[] = [];
  // A value of the wrong type may also fail a length check that says the same (a string for a list): once.
  const said = new Set<string>();
  if (!parsed.success)
    addIssues(parsed.error.issues, pointer, (at, message) => {
      if (said.has(`${at} ${message}`)) return;
      said.add(`${at} ${message}`);
      malformed.push(at);
      add(at, message);
    });
  references(condition, pointer, (at, message) => {
    if (!malformed.some((bad) => at === bad || at.startsWith(`${bad}/`))) add(at, message);
  });
  if (parsed.success) typeProblems(parsed.data, pointer, add);
};

const ORDER_OPERATORS = ['gt', 'gte', 'lt', 'lte'] as const;
type OrderOperator = (typeof ORDER_OPERATORS)[number];

/** What an ordered comparison compares: a number, an instant, or neither. */
const orderKind = (value: unknown): 'number' | 'time' | undefined => {
  if (typeof value === 'number' && Number.isFinite(value)) return 'number';
  if (typeof value === 'string' && TIMESTAMP.test(value) && !Number.isNaN(Date.parse(value))) return 'time';
  return undefined;
};

/** An operand written out in the definition (no `{{ reference }}` in it): its type is known on save. */
const isLiteral = (operand: unknown): boolean => referencesIn(operand).length === 0;

/** Type problems the definition shows by itself: operands written out that no run could compare. */
const typeProblems = (
  condition: Condition,
  pointer: string,
  add: (pointer: string, message: string) => void,
) => {
  const nested =
    'and' in condition ? ['and', condition.and] : 'or' in condition ? ['or', condition.or] : undefined;
  if (nested) {
    const [operator, conditions] = nested as [string, Condition[]];
    for (const [i, c] of conditions.entries()) typeProblems(c, `${pointer}/${operator}/${i}`, add);
  }
  if ('not' in condition) typeProblems(condition.not, `${pointer}/not`, add);
  const operator = ORDER_OPERATORS.find((o) => o in condition);
  if (operator) {
    const operands = (condition as Record<OrderOperator, [unknown, unknown]>)[operator];
    const kinds = operands.map((o) => (isLiteral(o) ? (orderKind(o) ?? 'other') : 'unknown'));
    kinds.forEach((kind, i) => {
      if (kind === 'other') add(`${pointer}/${operator}/${i}`, `must be ${ORDERED.replace(/\.$/, '')}`);
    });
    if (kinds[0] !== kinds[1] && !kinds.includes('unknown') && !kinds.includes('other'))
      add(`${pointer}/${operator}`, 'compares a number with a timestamp');
  }
  if ('startsWith' in condition)
    condition.startsWith.forEach((o, i) => {
      if (isLiteral(o) && typeof o !== 'string') add(`${pointer}/startsWith/${i}`, 'must be a string');
    });
  if ('contains' in condition) {
    const [haystack, needle] = condition.contains;
    if (isLiteral(haystack) && typeof haystack !== 'string' && !Array.isArray(haystack))
      add(`${pointer}/contains/0`, 'must be a string or a list');
    else if (
      typeof haystack === 'string' &&
      isLiteral(haystack) &&
      isLiteral(needle) &&
      typeof needle !== 'string'
    )
      add(`${pointer}/contains/1`, 'must be a string, as the text it is looked for in');
  }
};

/** A condition whose operands have types it cannot compare: the step fails with this. */
const mismatch = (operator: string, message: string) =>
  new StepOutcomeError('condition_type_mismatch', `The condition ${operator} ${message}.`, { operator });

const typeName = (value: unknown) => (Array.isArray(value) ? 'list' : value === null ? 'null' : typeof value);

const compare = (operator: OrderOperator, a: unknown, b: unknown): boolean => {
  // A missing operand (a failed step's output, an absent key) makes the comparison false, as for `eq`.
  if (a === undefined || b === undefined || a === null || b === null) return false;
  const kindA = orderKind(a);
  const kindB = orderKind(b);
  if (!kindA || kindA !== kindB)
    throw mismatch(operator, `compares a ${kindA ?? typeName(a)} with a ${kindB ?? typeName(b)}: ${ORDERED}`);
  const [x, y] =
    kindA === 'number' ? [a as number, b as number] : [Date.parse(a as string), Date.parse(b as string)];
  if (operator === 'gt') return x > y;
  if (operator === 'gte') return x >= y;
  if (operator === 'lt') return x < y;
  return x <= y;
};

const contains = (haystack: unknown, needle: unknown): boolean => {
  if (haystack === undefined || haystack === null) return false;
  if (Array.isArray(haystack)) return haystack.some((item) => same(item, needle));
  if (typeof haystack !== 'string')
    throw mismatch('contains', `looks into a ${typeName(haystack)}: a string or a list`);
  if (needle === undefined || needle === null) return false;
  if (typeof needle !== 'string') throw mismatch('contains', `looks for a ${typeName(needle)} in a string`);
  return haystack.includes(needle);
};

const startsWith = (text: unknown, prefix: unknown): boolean => {
  if (text === undefined || text === null || prefix === undefined || prefix === null) return false;
  if (typeof text !== 'string' || typeof prefix !== 'string')
    throw mismatch('startsWith', `compares a ${typeName(text)} with a ${typeName(prefix)}: two strings`);
  return text.startsWith(prefix);
};

const isEmpty = (value: unknown): boolean =>
  value === undefined ||
  value === null ||
  value === '' ||
  (Array.isArray(value) && value.length === 0) ||
  (typeof value === 'object' && value !== null && Object.keys(value).length === 0);

const same = (a: unknown, b: unknown): boolean =>
  a === undefined || b === undefined
    ? a === b
    : JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

/**
 * Whether a (valid) condition holds for the values of the run so far. Throws `condition_type_mismatch` (a
 * `StepOutcomeError`: the step fails with it) when operands have types the operator cannot compare.
 */
export const conditionHolds = (condition: Condition, scope: ReferenceScope): boolean => {
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
  for (const operator of ORDER_OPERATORS) {
    if (operator in condition) {
      const [a, b] = (condition as Record<OrderOperator, [unknown, unknown]>)[operator];
      return compare(operator, value(a), value(b));
    }
  }
  if ('contains' in condition) return contains(value(condition.contains[0]), value(condition.contains[1]));
  if ('startsWith' in condition)
    return startsWith(value(condition.startsWith[0]), value(condition.startsWith[1]));
  if ('isEmpty' in condition) return isEmpty(value(condition.isEmpty));
  if ('and' in condition) return condition.and.every((c) => conditionHolds(c, scope));
  if ('or' in condition) return condition.or.some((c) => conditionHolds(c, scope));
  if ('not' in condition) return !conditionHolds(condition.not, scope);
  throw new Error(`unknown condition operator: ${Object.keys(condition).join(', ')}`);
};

/**
 * A stored step's `if` (saved through `conditionProblems`), read through the schema like any stored shape: a
 * corrupt one throws rather than being evaluated.
 */
export const readCondition = (stored: unknown): Condition => conditionSchema().parse(stored);
