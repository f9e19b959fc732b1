/**
 * The classes of the MCP SDK the server uses, in a module of their own that the server imports with `import()`
 * on its first message (`#lazy/mcp-sdk`): on AWS it is built beside the group's bundle, not into it
 * (`LAZY_MODULES` in `lib/constructs/route-group.ts`), with its own aliases. The SDK builds several
 * hundred protocol schemas when it loads; a cold start of the group neither compiles nor builds them.
 *
 * Built on its own, the module carries its own copy of zod, which validates the tools' arguments and converts
 * their schemas (built by the bundle's copy) to JSON Schema: zod 4 works on any copy's schemas through their
 * `_zod` internals and keeps its metadata registry on `globalThis`, and `test/unit/mcp-bundle.test.ts` checks
 * that the bundle and this module together list exactly the tools, with exactly the schemas, that the source
 * does.
 */
export { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
export { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
