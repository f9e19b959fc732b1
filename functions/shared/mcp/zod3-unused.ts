/**
 * Stands in for `zod/v3` and `zod-to-json-schema` in the MCP group's bundle (esbuild aliases, see
 * `lib/constructs/route-group.ts`). The MCP SDK reaches them only for zod 3 schemas; every schema of this
 * project is zod 4 (`functions/shared/zod.ts`), so they are dead weight (about 75 KB minified). Reaching
 * one is a bug, and says so.
 */
const unused = (): never => {
  throw new Error('zod 3 schemas are not used in this project');
};

export const object = unused;
export const zodToJsonSchema = unused;
