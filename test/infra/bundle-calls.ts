import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { isCallingExport, SDK_ACTIONS, TRANSACTION, TRANSACTION_ITEM_ACTIONS } from './sdk-actions';

/**
 * The AWS calls a deployed bundle can make, derived from the bundle itself (the asset CDK synthesized).
 *
 * The method: the SDK is not in the bundle (the runtime provides it), so the bundle imports each command class
 * it may use from `@aws-sdk/*`. esbuild keeps an external import's names even where the code using them was
 * dropped, so the import list over-states the calls. The bundle is therefore bundled once more, with every
 * `@aws-sdk/*` module replaced by a stub whose exports are marker strings: esbuild's tree shaking then keeps
 * only the code reachable from the handler, and each use of an SDK export that survives prints its marker. Every such export that makes a request (a command, paginator, waiter) is an
 * AWS call the function can make; `sdk-actions.ts` maps it to IAM actions (a transaction to the actions of the
 * item kinds the code builds). This over-approximates what runs (code behind a condition that never holds in
 * one function still counts), never under-approximates it, so: no grant may exceed these calls, and a call not
 * granted must be listed with its reason in the function's `neverCalls`. An `import()` or `require()` of the
 * SDK cannot be followed by name and fails the analysis.
 */
export interface BundleCalls {
  /** `<package>#<export>` of every reachable calling export. */
  calls: string[];
  /** IAM action → the calls that need it. */
  actions: Map<string, string[]>;
  /** Problems that make the analysis unsound (unmapped calls, dynamic SDK imports). */
  problems: string[];
}

const MARKER = /"@sdk:([\w.-]+)#([\w$]+)"/g;

/**
 * Powertools modules (from the layer, outside the bundle) that send AWS requests for the code that uses them:
 * each such export with the SDK command it sends. They are stubbed like the SDK, with that command's marker,
 * so a reachable `new SecretsProvider()` counts as the `GetSecretValue` calls it makes.
 */
const LAYER_CALLS: Record<string, Record<string, string>> = {
  '@aws-lambda-powertools/parameters/secrets': {
    SecretsProvider: 'client-secrets-manager#GetSecretValueCommand',
  },
};

/**
 * Replaces each `@aws-sdk/*` module by a stub whose every export the file imports is a marker string
 * (`"@sdk:<package>#<Export>"`), so the printed bundle holds a marker exactly where a reachable use remains;
 * the calling exports of `LAYER_CALLS` get the marker of the command they send. Other bare imports (Node
 * built-ins, the rest of the Powertools layer, modules built beside the bundle) stay external.
 */
const sdkStub = (imported: Map<string, Set<string>>): Plugin => ({
  name: 'aws-sdk-stub',
  setup(builder) {
    const layerModules = Object.keys(LAYER_CALLS).map((m) => m.replace(/[/.-]/g, '\\$&'));
    builder.onResolve({ filter: new RegExp(`^(?:${layerModules.join('|')})$`) }, (args) => ({
      path: args.path,
      namespace: 'layer-calls',
    }));
    builder.onLoad({ filter: /.*/, namespace: 'layer-calls' }, (args) => ({
      contents: Object.entries(LAYER_CALLS[args.path] ?? {})
        .map(([name, call]) => `export const ${name} = "@sdk:${call}";`)
        .join('\n'),
      loader: 'js',
    }));
    builder.onResolve({ filter: /^@aws-sdk\// }, (args) => ({ path: args.path, namespace: 'aws-sdk' }));
    builder.onLoad({ filter: /.*/, namespace: 'aws-sdk' }, (args) => ({
      contents: [...(imported.get(args.path) ?? [])]
        .map((name) => `export const ${name} = "@sdk:${args.path.slice('@aws-sdk/'.length)}#${name}";`)
        .join('\n'),
      loader: 'js',
    }));
    builder.onResolve({ filter: /^[^./]/ }, (args) => ({ path: args.path, external: true }));
  },
});

/** The names a file imports from each `@aws-sdk/*` package (`import { A as b, C } from "@aws-sdk/x"`). */
const sdkImports = (file: string, source: string, problems: string[]): Map<string, Set<string>> => {
  const imported = new Map<string, Set<string>>();
  for (const [, names, pkg] of source.matchAll(/import\s*\{([^}]*)\}\s*from\s*["'](@aws-sdk\/[^"']+)["']/g)) {
    const set = imported.get(pkg as string) ?? new Set<string>();
    for (const name of (names as string).split(',')) {
      const exported = name.trim().split(/\s+as\s+/)[0];
      if (exported) set.add(exported);
    }
    imported.set(pkg as string, set);
  }
  if (/\b(?:import|require)\s*\(\s*["'`]@aws-sdk\//.test(source)) {
    problems.push(`${file}: loads the AWS SDK with import() or require(), which this analysis cannot follow`);
  }
  if (/import\s*(?:\*|[\w$]+\s*(?:,|from))[^;]*?["']@aws-sdk\//.test(source)) {
    problems.push(`${file}: imports the AWS SDK by namespace or default, which this analysis cannot follow`);
  }
  return imported;
};

const javascriptFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return javascriptFiles(path);
    return /\.(mjs|cjs|js)$/.test(name) ? [path] : [];
  });

const callsOfFile = async (
  file: string,
  problems: string[],
): Promise<{ calls: Set<string>; text: string }> => {
  const imported = sdkImports(file, readFileSync(file, 'utf8'), problems);
  const result = await build({
    entryPoints: [file],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    minify: false,
    treeShaking: true,
    logLevel: 'silent',
    plugins: [sdkStub(imported)],
  });
  const text = result.outputFiles.map((f) => f.text).join('\n');
  const calls = new Set<string>();
  for (const [, pkg, name] of text.matchAll(MARKER)) {
    if (pkg && name && isCallingExport(name)) calls.add(`${pkg}#${name}`);
  }
  return { calls, text };
};

/** The calls of every JavaScript file of an asset directory (the bundle and any module built beside it). */
export const bundleCalls = async (assetDir: string): Promise<BundleCalls> => {
  const problems: string[] = [];
  const actions = new Map<string, string[]>();
  const need = (action: string, call: string) => actions.set(action, [...(actions.get(action) ?? []), call]);
  const calls = new Set<string>();
  for (const file of javascriptFiles(assetDir)) {
    const found = await callsOfFile(file, problems);
    for (const call of found.calls) {
      calls.add(call);
      const mapped = SDK_ACTIONS[call];
      if (mapped === undefined) {
        problems.push(`${call} is not in test/infra/sdk-actions.ts: map it to the IAM actions it needs`);
      } else if (mapped === TRANSACTION) {
        // Item kinds are object keys (`{ Put: {...} }`), which the printed bundle keeps.
        const kinds = found.text.matchAll(/[{,]\s*(Put|Update|Delete|ConditionCheck)\s*:/g);
        for (const kind of new Set([...kinds].map((m) => m[1] as string))) {
          need(TRANSACTION_ITEM_ACTIONS[kind] as string, call);
        }
      } else {
        for (const action of mapped) need(action, call);
      }
    }
  }
  return { calls: [...calls].sort(), actions, problems };
};
