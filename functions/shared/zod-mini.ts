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
 */

export type { infer, input, output, ZodMiniNumber, ZodMiniOptional, ZodMiniType } from 'zod/mini';
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
} from 'zod/mini';
