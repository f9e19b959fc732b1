/**
 * The one entry point to zod. Import it as `import * as z from '<path>/zod'` and use `z.object(...)` as usual.
 *
 * zod's own `z` namespace object makes bundlers keep the whole library (every locale, the JSON Schema
 * converters): about 450 KB minified in each Lambda. This module re-exports the members the code uses by
 * name, so esbuild keeps only those (about 85 KB). Biome refuses `zod` imports anywhere else; add a member
 * here when the code needs one.
 */

export type { infer, output, ZodObject, ZodType } from 'zod';
/**
 * @public The zod source served for a Dynadata type (`domain/dynadata/zod-source.ts`) calls `z.preprocess`, and
 * its agreement test runs that source against this module.
 */
export {
  array,
  boolean,
  discriminatedUnion,
  enum,
  globalRegistry,
  intersection,
  iso,
  literal,
  looseObject,
  null,
  number,
  object,
  preprocess,
  record,
  strictObject,
  string,
  toJSONSchema,
  union,
  unknown,
  url,
  xor,
  ZodError,
} from 'zod';
