import { jsonRpcMessageSchema, jsonRpcResponseSchema, MCP_EXAMPLES } from './mcp-schemas';
import { route } from './route-definition';

/**
 * The routes of the MCP server (group `mcp`): a section of the route table (`route-table.ts` joins the
 * sections into `ROUTES`), imported alone by the group's function, so its bundle holds only its own routes.
 */
export const MCP_ROUTES = [
  route({
    method: 'POST',
    path: '/v1/mcp',
    group: 'mcp',
    operationId: 'mcp',
    sdk: null,
    summary: 'Model Context Protocol server (tools for agents)',
    description:
      'Streamable HTTP, stateless (no session id), JSON answers: POST one JSON-RPC 2.0 message per request. ' +
      "`tools/list` shows those of the tools below that the credential's scopes allow. " +
      'Each calls the same code as its route and needs the same scope; a refusal is a ' +
      'tool result with `isError: true` whose text is the problem the route would answer (same `code` and ' +
      '`detail`). Also takes `Authorization: Bearer <API key or JWT>`, after the three credential headers. ' +
      'Each HTTP request counts as one `api_requests`. GET and DELETE answer 405 (no server-sent stream, no ' +
      'session to end).',
    tag: 'MCP',
    describesTools: true,
    scope: 'authenticated',
    idempotency: 'refused',
    get body() {
      return jsonRpcMessageSchema();
    },
    get response() {
      return jsonRpcResponseSchema();
    },
    emptyAnswers: { 202: 'The message was a notification: accepted, nothing to answer.' },
    examples: MCP_EXAMPLES,
  }),
] as const;
