/**
 * The SDK's resource methods, read out of the OpenAPI document (decision 0043): each operation names its
 * method once, in its route declaration, which the document publishes as `x-sdk-method`
 * (`transcodes.create`, `workflows.runs.cancel`, `dynadata.items(type).list`). A read the SDK polls also
 * carries `x-sdk-waiter` (`{ member: 'job' }`): the answer's member whose `status` schema lists its final
 * states in `x-final-states`; the SDK adds `waitUntilDone` beside that read.
 *
 * The names are checked here, at build time: well formed, unique, no name both a method and a namespace, none
 * taken by the SDK's own members. From them `resourceTreeSource` writes the tree's types
 * (`src/generated/resource-tree.ts`); the run-time tree is built from the same facts in `OPERATIONS`.
 */

type Json = Record<string, unknown>;

export interface SdkWaiterFacts {
  /** The waiter's name beside the read (`waitUntilDone`). */
  name: string;
  /** The answer's member holding the polled resource (`job`, `run`). */
  member: string;
  /** The statuses at which the waiter stops, from the status schema's `x-final-states`. */
  final: string[];
}

export interface SdkMethodFacts {
  /** The method's full name: `transcodes.get`, `dynadata.items(type).list`. */
  name: string;
  /** Path parameters bound by a `name(param)` segment, in order. */
  bound: string[];
  /** The other path parameters, in path order: the method's leading arguments. */
  args: string[];
  /** The query parameters (the method's input object when the operation takes no body). */
  query: string[];
  /** Whether the operation takes a JSON body (the method's input object), and whether it must. */
  body: 'required' | 'optional' | null;
  waiter: SdkWaiterFacts | null;
}

/** One segment of a name: a lowerCamel identifier, optionally binding one path parameter. */
const SEGMENT = /^([a-z][a-zA-Z0-9]*)(?:\(([A-Za-z_][A-Za-z0-9_]*)\))?$/;

/** Names the SDK gives members of its own: a generated method may not take them. */
export const RESERVED_NAMES: Readonly<Record<string, readonly string[]>> = {
  '': ['api'],
  storage: ['upload'],
};

/** The name of the waiter added beside a read that declares `x-sdk-waiter`. */
export const WAITER_NAME = 'waitUntilDone';

/** The member of a paged list's method that iterates every element of every page (`list.all(…)`). */
export const ALL_ITEMS_NAME = 'all';

export interface ParsedName {
  /** The namespace segments with the parameter each binds (or undefined). */
  namespace: { name: string; bound: string | undefined }[];
  verb: string;
}

/** Splits and checks a method name; throws on one that is not well formed. */
export const parseSdkName = (name: string): ParsedName => {
  const parts = name.split('.');
  const parsed = parts.map((part) => SEGMENT.exec(part));
  const verb = parsed.at(-1);
  if (
    parts.length < 2 ||
    parsed.some((p) => p === null) ||
    verb?.[2] !== undefined ||
    verb?.[1] === undefined
  ) {
    throw new Error(
      `x-sdk-method \`${name}\` is not well formed: lowerCamel segments joined by dots, a resource then a verb; only a namespace segment may bind a path parameter, as \`items(type)\``,
    );
  }
  return {
    namespace: parsed.slice(0, -1).map((p) => ({ name: String(p?.[1]), bound: p?.[2] })),
    verb: verb[1],
  };
};

const pathParameters = (path: string): string[] =>
  [...path.matchAll(/\{([^{}]+)\}/g)].map((m) => String(m[1]));

/** The SDK facts of one operation, or null when it has no `x-sdk-method`. */
export const sdkMethodFacts = (
  operation: Json,
  path: string,
  parameters: Json[],
  body: 'required' | 'optional' | null,
  waiterFinal: (member: string) => string[] | undefined,
): SdkMethodFacts | null => {
  const name = operation['x-sdk-method'];
  if (name === undefined) return null;
  if (typeof name !== 'string')
    throw new Error(`${String(operation.operationId)}: x-sdk-method is not a string`);
  const parsed = parseSdkName(name);
  const inPath = pathParameters(path);
  const bound = parsed.namespace.flatMap((segment) => (segment.bound === undefined ? [] : [segment.bound]));
  for (const one of bound) {
    if (!inPath.includes(one))
      throw new Error(`x-sdk-method \`${name}\` binds \`${one}\`, not a parameter of ${path}`);
  }
  const declared = operation['x-sdk-waiter'];
  let waiter: SdkWaiterFacts | null = null;
  if (declared !== undefined) {
    const member = typeof declared === 'object' && declared !== null ? (declared as Json).member : undefined;
    const final = typeof member === 'string' ? waiterFinal(member) : undefined;
    if (typeof member !== 'string' || final === undefined || final.length === 0) {
      throw new Error(
        `${name}: x-sdk-waiter needs \`member\`, an answer member whose \`status\` declares \`x-final-states\``,
      );
    }
    waiter = { name: WAITER_NAME, member, final };
  }
  return {
    name,
    bound,
    args: inPath.filter((p) => !bound.includes(p)),
    query: parameters.filter((p) => p.in === 'query').map((p) => String(p.name)),
    body,
    waiter,
  };
};

interface Node {
  /** The parameter this namespace binds, when it is called (`items(type)`). */
  bound?: string;
  children: Map<string, Node>;
  /** Methods: name → operationId. */
  methods: Map<string, string>;
}

const newNode = (bound?: string): Node => ({ bound, children: new Map(), methods: new Map() });

/**
 * The tree of resource methods; throws on a name used twice, a name both a method and a namespace, a
 * namespace binding two different parameters, or a name the SDK keeps for itself.
 */
export const resourceTree = (methods: Record<string, SdkMethodFacts>): Node => {
  const root = newNode();
  const add = (node: Node, key: string, id: string, where: string) => {
    if (node.methods.has(key) || node.children.has(key)) {
      throw new Error(
        `SDK method \`${where}${key}\` is declared twice (${node.methods.get(key) ?? 'a namespace'} and ${id})`,
      );
    }
    node.methods.set(key, id);
  };
  for (const [id, facts] of Object.entries(methods).sort(([, a], [, b]) => a.name.localeCompare(b.name))) {
    const { namespace, verb } = parseSdkName(facts.name);
    let node = root;
    let where = '';
    for (const segment of namespace) {
      if (
        (RESERVED_NAMES[where.replace(/\.$/, '')] ?? []).includes(segment.name) ||
        node.methods.has(segment.name)
      ) {
        throw new Error(
          `SDK namespace \`${where}${segment.name}\` (${id}) clashes with a method of that name`,
        );
      }
      const child = node.children.get(segment.name) ?? newNode(segment.bound);
      if (child.bound !== segment.bound) {
        throw new Error(
          `SDK namespace \`${where}${segment.name}\` binds \`${child.bound}\` and \`${segment.bound}\` (${id})`,
        );
      }
      node.children.set(segment.name, child);
      node = child;
      where += `${segment.name}.`;
    }
    const scope = where.replace(/\.$/, '');
    if ((RESERVED_NAMES[scope] ?? []).includes(verb)) {
      throw new Error(`SDK method \`${facts.name}\` (${id}) takes a name the SDK keeps for itself`);
    }
    add(node, verb, id, where);
    if (facts.waiter !== null) add(node, facts.waiter.name, `${id} (waiter)`, where);
  }
  return root;
};

const literalTuple = (names: string[]): string => `[${names.map((n) => JSON.stringify(n)).join(', ')}]`;

const union = (values: string[]): string => values.map((v) => JSON.stringify(v)).join(' | ');

/**
 * The TypeScript source of the tree's type: one member per namespace and method, each method typed by its
 * operation (`Method<'createTranscode', []>`), paged lists as `ListMethod`, waiters as `Waiter`.
 */
export const resourceTreeSource = (
  methods: Record<string, SdkMethodFacts>,
  paged: (id: string) => boolean,
): string => {
  const root = resourceTree(methods);
  const render = (node: Node, indent: string): string => {
    const lines: string[] = [];
    for (const [key, id] of node.methods) {
      const base = id.replace(/ \(waiter\)$/, '');
      const facts = methods[base];
      if (facts === undefined) continue;
      const args = literalTuple(facts.args);
      const type =
        id !== base && facts.waiter !== null
          ? `Waiter<${JSON.stringify(base)}, ${args}, ${JSON.stringify(facts.waiter.member)}, ${union(facts.waiter.final)}>`
          : `${paged(base) ? 'ListMethod' : 'Method'}<${JSON.stringify(base)}, ${args}>`;
      lines.push(`${indent}${key}: ${type};`);
    }
    for (const [key, child] of node.children) {
      const body = `{\n${render(child, `${indent}  `)}${indent}}`;
      const [someId] = child.methods.values();
      const param = `PathParams<${JSON.stringify(someId?.replace(/ \(waiter\)$/, ''))}>[${JSON.stringify(child.bound)}]`;
      lines.push(
        child.bound === undefined
          ? `${indent}${key}: ${body};`
          : `${indent}${key}: (${child.bound}: ${param}) => ${body};`,
      );
    }
    return lines.map((line) => `${line}\n`).join('');
  };
  return [
    '/** Generated from the OpenAPI document by sdk/scripts/generate.ts: do not edit. */',
    "import type { ListMethod, Method, Waiter } from '../method-types.js';",
    "import type { PathParams } from '../operation-types.js';",
    '',
    "/** The resource methods, named by each operation's `x-sdk-method`. */",
    'export interface ResourceTree {',
    render(root, '  ').replace(/\n$/, ''),
    '}',
    '',
  ].join('\n');
};
