/**
 * The classes of the MCP SDK the server uses, in a module of their own so that the server imports them with
 * `import()` on its first request: the SDK builds its protocol schemas (several hundred zod schemas) when it
 * loads, which a cold start of the group does not pay. It imports zod's functional build as `zod/v4-mini`,
 * which is why `../zod-mini` names that specifier.
 */
export { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
export { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
