import { canonical } from '../../canonical-json';
import { lazy } from '../../lazy';
import * as z from '../../zod';
import { type ReferenceScope, resolveReferences } from './references';

const MAX_OPERANDS = 20;
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
        '`{"eq": [a, b]}`, `{"ne": [a, b]}`, `{"in": [a, list]}`, `{"exists": a}`, `{"and": [c, …]}`, ' +
        `\`{"or": [c, …]}\` (1 to ${MAX_OPERANDS} conditions), \`{"not": c}\`. Operands are JSON values or ` +
        '`{{ references }}` to the input and earlier steps; a missing value equals only another missing value. ' +
        'No code is evaluated.',
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
};

const same = (a: unknown, b: unknown): boolean =>
  a === undefined || b === undefined
    ? a === b
    : JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

/** Whether a (valid) condition holds for the values of the run so far. */
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
  if ('and' in condition) return condition.and.every((c) => conditionHolds(c, scope));
  if ('or' in condition) return condition.or.some((c) => conditionHolds(c, scope));
  return !conditionHolds(condition.not, scope);
};

/**
 * A stored step's `if` (saved through `conditionProblems`), read through the schema like any stored shape: a
 * corrupt one throws rather than being evaluated.
 */
export const readCondition = (stored: unknown): Condition => conditionSchema().parse(stored);
