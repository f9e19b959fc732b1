import type { FieldError } from '../../errors';
import {
  RESERVED_WORKFLOW_IDS,
  WORKFLOW_ID_PATTERN,
  WORKFLOW_MAX_STEPS,
  WORKFLOW_STEP_ID_PATTERN,
  type WorkflowDefinition,
} from '../../types/workflows';
import { normaliseTypeSchema } from '../dynadata/json-schema';
import { findAction } from './actions';
import { conditionProblems } from './conditions';
import { forEachProblems } from './for-each';
import { parseReference, referencesIn } from './references';
import { retryProblems } from './retry';
import { triggerProblems } from './trigger-definition';

/**
 * Validation of a workflow definition on save: every violation is listed with a JSON pointer into the
 * document (`/steps/1/with/fullPath`). Rules: `id` `[a-z0-9_-]{1,64}`; `name` 1..200 characters; `input` a
 * JSON Schema of the Dynadata subset (an object schema); 1..50 `steps` with unique ids, a known `action`, a
 * `with` object, `allowFailure` boolean, an optional `if` (`conditions.ts`), `retry` (`retry.ts`) and `forEach`
 * with `concurrency` (`for-each.ts`); references parse, a step refers only to earlier steps (`return` may refer
 * to any step), `{{ item }}` / `{{ index }}` appear only in the `with` of a `forEach` step, and
 * `{{ secrets.NAME }}` only in an HTTP step's `url`, `headers` and `body`. The document stays under `WORKFLOW_MAX_BYTES`.
 */
export const WORKFLOW_MAX_BYTES = 64 * 1024;
/** Deepest nesting of a definition's arrays and objects (the document is depth 1), as for request bodies. */
export const WORKFLOW_MAX_DEPTH = 32;

/**
 * The first value nested deeper than `WORKFLOW_MAX_DEPTH`, or member named `__proto__` (which a copy of the
 * document would silently drop), with its pointer. Iterative: no stack to exhaust.
 */
const shapeProblem = (doc: unknown): FieldError | undefined => {
  const stack: { value: unknown; pointer: string; depth: number }[] = [{ value: doc, pointer: '', depth: 1 }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue;
    if (next.depth > WORKFLOW_MAX_DEPTH) {
      return { pointer: next.pointer, message: `is nested deeper than ${WORKFLOW_MAX_DEPTH} levels` };
    }
    for (const [key, child] of Object.entries(next.value)) {
      const pointer = `${next.pointer}/${escapeKey(key)}`;
      if (key === '__proto__') return { pointer, message: 'a member may not be named __proto__' };
      stack.push({ value: child, pointer, depth: next.depth + 1 });
    }
  }
  return undefined;
};
const TOP_KEYS = new Set(['id', 'name', 'description', 'input', 'steps', 'return', 'on']);
const STEP_KEYS = new Set(['id', 'action', 'with', 'allowFailure', 'if', 'retry', 'forEach', 'concurrency']);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const escapeKey = (k: string) => k.replaceAll('~', '~0').replaceAll('/', '~1');

/** The action whose outbound request may carry workflow secrets, and the members of its `with` that may. */
const SECRET_ACTION = 'actions/http/request';
const SECRET_MEMBERS = ['url', 'headers', 'body'];
const SECRET_PLACES = 'secrets may be used only in the url, headers and body of an actions/http/request step';

/** Whether a reference at `pointer` may name a secret: inside `with.url`, `.headers` or `.body` of an HTTP step. */
const secretsAllowedIn = (stepAt: string, action: unknown) => (pointer: string) =>
  action === SECRET_ACTION &&
  SECRET_MEMBERS.some((m) => pointer === `${stepAt}/with/${m}` || pointer.startsWith(`${stepAt}/with/${m}/`));

const checkReferences = (
  value: unknown,
  pointer: string,
  known: ReadonlySet<string>,
  all: ReadonlySet<string>,
  add: (pointer: string, message: string) => void,
  where: {
    /** Whether `{{ item }}` and `{{ index }}` may appear (the `with` of a `forEach` step). */
    inLoop?: boolean;
    /** Whether a reference at that pointer may name a workflow secret. */
    secretsAllowed?: (pointer: string) => boolean;
  } = {},
) => {
  for (const found of referencesIn(value, pointer)) {
    if (found.text === '{{') {
      add(found.pointer, 'has an unclosed {{');
      continue;
    }
    const ref = parseReference(found.text);
    if ('problem' in ref) add(found.pointer, `reference {{ ${found.text} }}: ${ref.problem}`);
    else if (ref.root === 'secrets' && !(where.secretsAllowed?.(found.pointer) ?? false))
      add(found.pointer, SECRET_PLACES);
    else if ((ref.root === 'item' || ref.root === 'index') && !where.inLoop)
      add(found.pointer, `reference {{ ${found.text} }} is only available in the with of a forEach step`);
    else if (ref.root === 'steps' && !known.has(ref.step)) {
      add(
        found.pointer,
        all.has(ref.step)
          ? `reference {{ ${found.text} }} names a later step`
          : `reference {{ ${found.text} }} names an unknown step`,
      );
    }
  }
};

export const definitionProblems = async (doc: unknown): Promise<FieldError[]> => {
  const problems: FieldError[] = [];
  const add = (pointer: string, message: string) => problems.push({ pointer: pointer || '/', message });
  if (!isObject(doc)) return [{ pointer: '/', message: 'must be a JSON object' }];
  const shape = shapeProblem(doc);
  if (shape) return [shape];
  if (Buffer.byteLength(JSON.stringify(doc)) > WORKFLOW_MAX_BYTES)
    return [{ pointer: '/', message: `must be at most ${WORKFLOW_MAX_BYTES} bytes` }];
  for (const key of Object.keys(doc))
    if (!TOP_KEYS.has(key)) add(`/${escapeKey(key)}`, 'is not a field of a workflow');
  if (typeof doc.id !== 'string' || !WORKFLOW_ID_PATTERN.test(doc.id))
    add('/id', 'must match [a-z0-9_-]{1,64}');
  else if (RESERVED_WORKFLOW_IDS.has(doc.id)) add('/id', `${doc.id} is reserved (/v1/workflows/${doc.id})`);
  if (typeof doc.name !== 'string' || doc.name.length < 1 || doc.name.length > 200)
    add('/name', 'must be a string of 1 to 200 characters');
  if (doc.description !== undefined && (typeof doc.description !== 'string' || doc.description.length > 2000))
    add('/description', 'must be a string of at most 2000 characters');
  if (doc.input !== undefined) {
    for (const p of (await normaliseTypeSchema(doc.input)).problems)
      add(`/input${p.pointer === '/' ? '' : p.pointer}`, p.message);
  }
  const steps = doc.steps;
  if (!Array.isArray(steps) || steps.length < 1 || steps.length > WORKFLOW_MAX_STEPS) {
    add('/steps', `must be a list of 1 to ${WORKFLOW_MAX_STEPS} steps`);
  }
  const list: unknown[] = Array.isArray(steps) ? steps : [];
  const all = new Set(list.flatMap((s) => (isObject(s) && typeof s.id === 'string' ? [s.id] : [])));
  const known = new Set<string>();
  list.forEach((step, i) => {
    const at = `/steps/${i}`;
    if (!isObject(step)) {
      add(at, 'must be an object');
      return;
    }
    for (const key of Object.keys(step))
      if (!STEP_KEYS.has(key)) add(`${at}/${escapeKey(key)}`, 'is not a field of a step');
    if (typeof step.id !== 'string' || !WORKFLOW_STEP_ID_PATTERN.test(step.id))
      add(`${at}/id`, 'must match [A-Za-z0-9_-]{1,64}');
    // A step id names the step's output in a run's state, as a member name: `__proto__` cannot be one.
    else if (step.id === '__proto__') add(`${at}/id`, 'may not be __proto__');
    else if (known.has(step.id)) add(`${at}/id`, `repeats the step id ${step.id}`);
    if (typeof step.action !== 'string' || !findAction(step.action))
      add(`${at}/action`, 'is not a known action');
    if (step.with !== undefined && !isObject(step.with)) add(`${at}/with`, 'must be an object');
    else if (isObject(step.with) && typeof step.action === 'string')
      findAction(step.action)?.withProblems?.(step.with, `${at}/with`, add);
    if (step.allowFailure !== undefined && typeof step.allowFailure !== 'boolean')
      add(`${at}/allowFailure`, 'must be a boolean');
    checkReferences(step.with, `${at}/with`, known, all, add, {
      inLoop: step.forEach !== undefined,
      secretsAllowed: secretsAllowedIn(at, step.action),
    });
    forEachProblems(step, at, add, (v, p) => checkReferences(v, p, known, all, add));
    if (step.if !== undefined)
      conditionProblems(step.if, `${at}/if`, add, (v, p, found) => checkReferences(v, p, known, all, found));
    if (step.retry !== undefined) retryProblems(step.retry, `${at}/retry`, add);
    if (typeof step.id === 'string') known.add(step.id);
  });
  checkReferences(doc.return, '/return', all, all, add);
  problems.push(...(await triggerProblems(doc)));
  return problems;
};

/** The definition as stored: the input schema normalised (defaults to any object). */
export const normaliseDefinition = async (doc: WorkflowDefinition): Promise<WorkflowDefinition> => ({
  ...doc,
  input: (await normaliseTypeSchema(doc.input ?? { type: 'object' })).schema,
  steps: doc.steps.map((s) => ({ ...s, with: s.with ?? {}, allowFailure: s.allowFailure ?? false })),
});
