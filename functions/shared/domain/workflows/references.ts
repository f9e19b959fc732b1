import { SECRET_NAME_PATTERN } from '../../types/workflows';

/**
 * References in workflow definitions: `{{ path }}` inside any string of a step's `with` or of `return`.
 * Paths are data, never code: `input.<path>`, `steps.<id>.output[.<path>]`, `steps.<id>.status`, `run.id`,
 * `trigger.<path>` (what started the run: `trigger.type`, and `trigger.event.…` of a run started by an event),
 * `secrets.NAME` (a workflow secret, only in an HTTP step's `url`, `headers` and `body`),
 * and in a `forEach` step `item[.<path>]` (the element of the list this run of the action is for) and `index`
 * (its position, from 0), where `<path>` is dot-separated keys or array indexes. A string that is exactly one reference takes the
 * referenced value with its type; a reference inside a longer string is interpolated as text. A value that
 * is missing (a failed step's output, an absent key) resolves to `undefined` (the key is left out), and to
 * the empty string inside a longer string.
 */

const REFERENCE = /\{\{\s*([^{}]*?)\s*\}\}/g;
const WHOLE = /^\{\{\s*([^{}]*?)\s*\}\}$/;
const SEGMENT = /^[A-Za-z0-9_-]+$/;

export type Reference =
  | { root: 'input'; path: string[] }
  | { root: 'steps'; step: string; field: 'output'; path: string[] }
  | { root: 'steps'; step: string; field: 'status' }
  | { root: 'run'; field: 'id' }
  | { root: 'trigger'; path: string[] }
  | { root: 'secrets'; name: string }
  | { root: 'item'; path: string[] }
  | { root: 'index' };

/** Parses one reference path, or answers why it is not one. */
export const parseReference = (text: string): Reference | { problem: string } => {
  const segments = text.split('.');
  if (segments.some((s) => !SEGMENT.test(s))) {
    return { problem: `"${text}" is not a path of keys separated by dots` };
  }
  const [root, second, third, ...rest] = segments as [string, ...string[]];
  if (root === 'input' || root === 'trigger' || root === 'item') return { root, path: segments.slice(1) };
  if (root === 'index') return segments.length === 1 ? { root } : { problem: 'index has no fields' };
  if (root === 'secrets') {
    return second !== undefined && segments.length === 2 && SECRET_NAME_PATTERN.test(second)
      ? { root, name: second }
      : { problem: 'a secret is secrets.NAME (upper case, digits and _, starting with a letter)' };
  }
  if (root === 'run') {
    return second === 'id' && segments.length === 2
      ? { root, field: 'id' }
      : { problem: 'only run.id exists' };
  }
  if (root === 'steps' && second !== undefined) {
    if (third === 'output') return { root, step: second, field: 'output', path: rest };
    if (third === 'status' && rest.length === 0) return { root, step: second, field: 'status' };
    return { problem: `steps.${second} has only output and status` };
  }
  return {
    problem: `"${text}" must start with input., steps.<id>., trigger., secrets., item or index, or be run.id`,
  };
};

/** Whether a string is exactly one `{{ reference }}` (it then takes the referenced value with its type). */
export const isWholeReference = (value: string): boolean => WHOLE.test(value);

/** The literal parts of a string: the string with every `{{ reference }}` taken out. */
export const literalPartsOf = (value: string): string => value.replace(REFERENCE, '');

/** Every reference of a value (strings anywhere inside it), with the JSON pointer of the string. */
export const referencesIn = (value: unknown, pointer = ''): { pointer: string; text: string }[] => {
  if (typeof value === 'string') {
    const found = [...value.matchAll(REFERENCE)].map((m) => ({ pointer, text: m[1] ?? '' }));
    const unbalanced = value.replace(REFERENCE, '').includes('{{');
    return unbalanced ? [...found, { pointer, text: '{{' }] : found;
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => referencesIn(v, `${pointer}/${i}`));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([k, v]) =>
      referencesIn(v, `${pointer}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`),
    );
  }
  return [];
};

/** The names of the workflow secrets a value references (`{{ secrets.NAME }}`). */
export const secretNamesIn = (value: unknown): string[] =>
  referencesIn(value).flatMap(({ text }) => {
    const ref = parseReference(text);
    return 'root' in ref && ref.root === 'secrets' ? [ref.name] : [];
  });

/** What references resolve against. */
export interface ReferenceScope {
  input: unknown;
  runId: string;
  /** Completed steps: status and (for succeeded steps) output. */
  steps: Record<string, { status: string; output?: unknown }>;
  /** What started the run (`{ type: 'api' }` for an API call). */
  trigger?: unknown;
  /** The values of the workflow secrets the step may use (only an HTTP step's outbound request gets them). */
  secrets?: ReadonlyMap<string, string>;
  /** In a `forEach` step: the element of the list and its position. */
  item?: unknown;
  index?: number;
}

const walk = (value: unknown, path: readonly string[]): unknown => {
  let node = value;
  for (const key of path) {
    if (Array.isArray(node) && /^\d+$/.test(key)) node = node[Number(key)];
    else if (typeof node === 'object' && node !== null && Object.hasOwn(node, key))
      node = (node as Record<string, unknown>)[key];
    else return undefined;
  }
  return node;
};

const lookup = (text: string, scope: ReferenceScope): unknown => {
  const ref = parseReference(text);
  if ('problem' in ref) return undefined;
  if (ref.root === 'input') return walk(scope.input, ref.path);
  if (ref.root === 'trigger') return walk(scope.trigger, ref.path);
  if (ref.root === 'run') return scope.runId;
  if (ref.root === 'secrets') return scope.secrets?.get(ref.name);
  if (ref.root === 'item') return walk(scope.item, ref.path);
  if (ref.root === 'index') return scope.index;
  const step = Object.hasOwn(scope.steps, ref.step) ? scope.steps[ref.step] : undefined;
  if (!step) return undefined;
  if (ref.field === 'status') return step.status;
  // A skipped step's output is null; a failed step has one only when its action answered (an HTTP status).
  return 'output' in step ? walk(step.output, ref.path) : undefined;
};

const asText = (value: unknown): string => {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
};

/** Resolves every reference inside `value`; keys whose value resolves to `undefined` are left out. */
export const resolveReferences = (value: unknown, scope: ReferenceScope): unknown => {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole) return lookup(whole[1] ?? '', scope);
    return value.replace(REFERENCE, (_, text: string) => asText(lookup(text, scope)));
  }
  if (Array.isArray(value)) return value.map((v) => resolveReferences(v, scope) ?? null);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const resolved = resolveReferences(v, scope);
      if (resolved !== undefined) out[k] = resolved;
    }
    return out;
  }
  return value;
};
