/**
 * Stands in, in the MCP SDK's lazy module (esbuild aliases, `LAZY_MODULE_ALIASES` in
 * `lib/constructs/route-group.ts`), for modules the SDK imports but this server never runs:
 * - `zod/v3` and `zod-to-json-schema`: the SDK reaches them only for zod 3 schemas; every schema of this
 *   project is zod 4 (`functions/shared/zod.ts`) (about 75 KB minified);
 * - `ajv` and `ajv-formats`: the SDK's default JSON Schema validator, which a server uses only to check the
 *   answers to its own elicitation requests. This server elicits nothing and is given its own validator
 *   (`functions/shared/mcp/server.ts`), so the default is never built (about 135 KB minified).
 * Reaching one is a bug, and says so.
 */
const unused = (): never => {
  throw new Error('this module of the MCP SDK is not used in this project');
};

export const object = unused;
export const zodToJsonSchema = unused;
export default unused;
