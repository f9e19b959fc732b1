/**
 * The entry point to zod's functional build (`zod/mini`), for the entity schemas of the data modules. Import
 * it as `import * as zm from '<path>/zod-mini'`.
 *
 * Every Lambda reads the table, but not every Lambda validates HTTP input: the authorizer and the workers
 * carry no classic zod. Their entity schemas in classic zod would add about 85 KB to each bundle; the same
 * schemas in `zod/mini` add about 15 KB, and about 6 KB to a route group that already holds classic zod
 * (both builds share zod's core; `docs/decisions/0005-entity-layer.md` has the figures). Like `./zod`, this
 * re-exports the members the code uses by name so bundlers keep only those; add a member when a schema needs
 * one.
 *
 * The specifier is `zod/v4-mini`, the one the MCP SDK imports (the same files as `zod/mini`): the MCP group
 * loads the SDK with `import()` on its first message, so esbuild wraps the SDK's modules, zod's among them, in
 * initializers that run on first use. A module that imports a wrapped module calls its initializer first, but
 * esbuild drops that call when it sits in a package module declared free of side effects (zod's
 * `package.json` says so) that is not wrapped itself, as `zod/mini`'s entry would be: the entity schemas,
 * built when the bundle loads, would then meet zod's classes uninitialised. Importing the wrapped entry
 * directly puts the call here, where it stays (`test/unit/mcp-bundle.test.ts` loads the group's bundle).
 */

export type { infer, input, output, ZodMiniNumber, ZodMiniOptional, ZodMiniType } from 'zod/v4-mini';
export {
  array,
  boolean,
  custom,
  enum,
  literal,
  nullable,
  number,
  object,
  optional,
  record,
  safeParse,
  string,
  union,
  unknown,
} from 'zod/v4-mini';
