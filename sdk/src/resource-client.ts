import { callOperation, factsOf, type Loose, type SdkFacts } from './call-operation.js';
import { type ApiClient, type ApiClientOptions, createApiClient } from './client.js';
import { ApiError, isRecord } from './errors.js';
import { OPERATIONS } from './generated/operations.js';
import type { ResourceTree } from './generated/resource-tree.js';
import type { OperationId, PagedOperationId } from './operation-types.js';
import { type StorageUpload, uploadWith } from './upload.js';
import { pollUntilFinal } from './waiters.js';

/**
 * The resource client (decision 0043): `client.transcodes.create(…)`, `client.dynadata.items('orders').list()`,
 * `client.workflows.runs.waitUntilDone(workflowId, runId)`. Its tree is built from the operation table the
 * build generates from the document: each operation's `x-sdk-method` names its place, so no method is listed
 * here by hand. Every method calls through the path client (`createApiClient`: credential, idempotency keys,
 * retries), answers the success body and throws an `ApiError` on a refusal.
 */

/** Splits a method's arguments: path parameters, then the input object when it takes one, then options. */
const argumentsOf = (sdk: SdkFacts, bound: Loose, args: unknown[]) => {
  const path: Loose = { ...bound };
  sdk.args.forEach((name: string, i: number) => {
    const value = args[i];
    if (typeof value !== 'string' && typeof value !== 'number') {
      throw new TypeError(`${sdk.name}: argument ${i + 1} is the path parameter \`${name}\``);
    }
    path[name] = value;
  });
  const rest = args.slice(sdk.args.length);
  const takesInput = sdk.body !== null || sdk.query.length > 0;
  const [input, options] = takesInput ? rest : [undefined, rest[0]];
  return { path, input, options: isRecord(options) ? options : {} };
};

const methodOf = (api: ApiClient, id: OperationId, sdk: SdkFacts, bound: Loose) => {
  const method = async (...args: unknown[]) => {
    const { path, input, options } = argumentsOf(sdk, bound, args);
    return (await callOperation(api, id, path, input, options)).data;
  };
  const members: Loose = {
    operationId: id,
    isError: (error: unknown) =>
      error instanceof ApiError && (error.operationId === undefined || error.operationId === id),
  };
  if (OPERATIONS[id].page !== null) {
    members.all = (...args: unknown[]) => {
      const { path, input } = argumentsOf(sdk, bound, args);
      const loose = api.paginate as (id: PagedOperationId, input: Loose) => AsyncGenerator<unknown>;
      return loose(
        id as PagedOperationId,
        sdk.body === null ? { path, query: input } : { path, body: input },
      );
    };
  }
  return Object.assign(method, members);
};

const waiterOf = (api: ApiClient, id: OperationId, sdk: SdkFacts, bound: Loose) => {
  const { member, final } = sdk.waiter ?? { member: '', final: [] };
  return (...args: unknown[]) => {
    const { path } = argumentsOf({ ...sdk, body: null, query: [] }, bound, args);
    const options = args[sdk.args.length];
    const wait = isRecord(options) ? options : {};
    return pollUntilFinal(
      (signal) => callOperation(api, id, path, undefined, signal === undefined ? {} : { signal }),
      member,
      final,
      wait,
    );
  };
};

interface Node {
  bound: string | undefined;
  children: Map<string, Node>;
  methods: Map<string, OperationId>;
  waiters: Map<string, OperationId>;
}

const newNode = (bound: string | undefined): Node => ({
  bound,
  children: new Map(),
  methods: new Map(),
  waiters: new Map(),
});

/** The namespaces and methods of the operation table (names checked at build time, `scripts/sdk-methods.ts`). */
const tree: Node = newNode(undefined);
for (const id of Object.keys(OPERATIONS) as OperationId[]) {
  const sdk = factsOf(id).sdk;
  if (sdk === null) continue;
  const segments = sdk.name.split('.');
  const verb = segments.pop() ?? '';
  let node = tree;
  for (const segment of segments) {
    const [, name = segment, bound] = /^([^(]+)(?:\((.+)\))?$/.exec(segment) ?? [];
    const child = node.children.get(name) ?? newNode(bound);
    node.children.set(name, child);
    node = child;
  }
  node.methods.set(verb, id);
  if (sdk.waiter !== null) node.waiters.set(sdk.waiter.name, id);
}

const materialize = (api: ApiClient, node: Node, bound: Loose): Loose => {
  const out: Loose = {};
  const sdkOf = (id: OperationId) => factsOf(id).sdk as SdkFacts;
  for (const [name, id] of node.methods) out[name] = methodOf(api, id, sdkOf(id), bound);
  for (const [name, id] of node.waiters) out[name] = waiterOf(api, id, sdkOf(id), bound);
  for (const [name, child] of node.children) {
    const param = child.bound;
    out[name] =
      param === undefined
        ? materialize(api, child, bound)
        : (value: string) => materialize(api, child, { ...bound, [param]: value });
  }
  return out;
};

/** The resource client: the generated tree, `storage.upload`, and the path client as `api`. */
export type Client = Omit<ResourceTree, 'storage'> & {
  storage: ResourceTree['storage'] & { upload: StorageUpload };
  /** The path client (`api.GET('/v1/self')` → `{ data, error }`), over the same credential and retries. */
  readonly api: ApiClient;
};

/** Creates the resource client (same options as `createApiClient`). */
export const createClient = (options: ApiClientOptions): Client => {
  const api = createApiClient(options);
  const resources = materialize(api, tree, {});
  const storage = isRecord(resources.storage) ? resources.storage : {};
  storage.upload = uploadWith(api, options.fetch ?? ((request: Request) => globalThis.fetch(request)));
  return Object.assign(resources, { api }) as unknown as Client;
};
