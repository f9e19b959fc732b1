import { lazy } from '../lazy';
import * as z from '../zod';

/**
 * The HTTP shapes of `POST /v1/mcp`: one JSON-RPC 2.0 message per request (the Model Context Protocol's
 * Streamable HTTP transport without batches), and the JSON-RPC answer. The tools themselves are described by
 * the server's `tools/list` answer, not here.
 */
export const jsonRpcMessageSchema = /* @__PURE__ */ lazy(() =>
  z
    .strictObject({
      jsonrpc: z.literal('2.0'),
      id: z
        .union([z.string().min(1).max(256), z.number().int()])
        .optional()
        .describe('Present on a request; absent on a notification, which is answered 202 with no body.'),
      method: z
        .string()
        .min(1)
        .max(128)
        .describe('`initialize`, `ping`, `tools/list`, `tools/call`, or a notification (`notifications/…`).'),
      params: z.record(z.string(), z.unknown()).optional(),
    })
    .describe('One MCP message: a JSON-RPC 2.0 request or notification.'),
);

export const jsonRpcResponseSchema = /* @__PURE__ */ lazy(() =>
  z
    .looseObject({
      jsonrpc: z.literal('2.0'),
      id: z.union([z.string(), z.number(), z.null()]),
      result: z
        .record(z.string(), z.unknown())
        .optional()
        .describe(
          'The result. For `tools/call`: `content`, `structuredContent` (matching the tool’s `outputSchema`), ' +
            'and `isError: true` when the tool refused, with the problem (`code`, `detail`) as its text.',
        ),
      error: z
        .looseObject({ code: z.number().int(), message: z.string(), data: z.unknown().optional() })
        .optional()
        .describe('A JSON-RPC error: unknown method (-32601), invalid params (-32602).'),
    })
    .describe('The JSON-RPC 2.0 answer to the request.'),
);

export const MCP_EXAMPLES = {
  request: {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'get_usage', arguments: { granularity: 'day' } },
  },
  response: {
    jsonrpc: '2.0',
    id: 1,
    result: {
      content: [{ type: 'text', text: '{"granularity":"day", …}' }],
      structuredContent: { granularity: 'day' },
    },
  },
};
