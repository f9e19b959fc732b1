import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { AppError, ValidationError } from '../errors';
import { IDEMPOTENCY_KEY_PATTERN, withIdempotency } from '../http/idempotency';
import { buildProblem } from '../http/problem';
import { logger } from '../observability/logger';
import { isObjectSchema } from '../operations/operation-input';
import { jsonRpcResponseSchema } from '../routes/mcp-schemas';
import type { ToolEffect } from '../routes/route-definition';
import * as z from '../zod';
import { TOOLS, type ToolContext, type ToolDefinition } from './tools';

/**
 * The MCP server of `POST /v1/mcp`, built per request with the SDK's `McpServer` and its web-standard
 * Streamable HTTP transport: stateless (no session id, so nothing is kept between requests or Lambda
 * instances) and answering JSON, never a server-sent stream.
 *
 * A tool applies its route's rules before calling the route's domain function: the log-entry guard where the
 * route writes items (before the scope check, as on the route), then the route's scope. A refusal, and any
 * domain error, is a tool result with `isError: true` whose text is the problem JSON the route would answer
 * (same `code`, `detail` and extension members); an unexpected error is logged and answered as `internal`
 * without internals.
 */
export const SERVER_INFO = {
  name: 'messaging-dynadata-api',
  title: 'Messaging and Dynamic Data API',
  version: '1.0.0',
};

const INSTRUCTIONS =
  'Tools act for the company of the credential, each as its route of the REST API. Start and read media ' +
  'transform, transcription and speech jobs; synthesize speech; send a message to a contact; upload and ' +
  'download stored files; read the usage snapshot and the events; read and write Dynadata items (log_entries ' +
  'is read-only); list, read and run workflows and read their runs. A refused call answers isError with a ' +
  'problem JSON carrying a stable `code`; a write tool takes `idempotencyKey` so a retry changes nothing twice.';

/**
 * The server's JSON Schema validator. The SDK uses it only to check what a client answers to the server's own
 * elicitation requests; this server elicits nothing (tool inputs and outputs are checked with their zod
 * schemas), so it refuses to be used. Giving it keeps the SDK's default (ajv) out of the group's bundle.
 */
const NO_ELICITATION: jsonSchemaValidator = {
  getValidator: () => {
    throw new Error('the MCP server elicits no input');
  },
};

/** The MCP hints each effect earns (MCP 2025-06-18 `ToolAnnotations`); every tool touches only this API. */
const ANNOTATIONS: Record<
  ToolEffect,
  { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean }
> = {
  read: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  create: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  update: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  delete: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
};

const toolError = (error: unknown, tool: ToolDefinition, context: ToolContext): CallToolResult => {
  const known = error instanceof AppError && error.code !== 'internal';
  if (!known) logger.error('tool failed', { tool: tool.name, error: error as Error });
  const appError = known ? error : new AppError('internal', 'The request could not be completed.');
  const problem = buildProblem(appError, context.requestId);
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(problem) }] };
};

/**
 * A tool that changes data takes an optional `idempotencyKey`, as its route takes `Idempotency-Key`: an agent's
 * retry with the same key and the same arguments answers the first call's result and does nothing twice; the
 * same key with other arguments is `idempotency_key_reused`; while the first still runs,
 * `idempotency_request_in_progress`. Keys are kept per company and tool (`mcp:<tool>`) for 24 hours, apart
 * from the route's (a tool answers another shape).
 */
const idempotencyKeyArgument = () =>
  z
    .string()
    .regex(IDEMPOTENCY_KEY_PATTERN)
    .optional()
    .describe(
      'Makes a retry safe: a repeat with the same key and arguments within 24 hours answers the first result and changes nothing again (1 to 255 printable ASCII characters).',
    );

/**
 * The members of an input of alternatives (a message of one kind or another), each accepting what any
 * alternative's member does: `tools/list` describes a tool's input as one object, so such an input is listed
 * so and every call is then checked against the alternatives themselves (`callTool`).
 */
const listedMembers = (input: z.ZodType): Record<string, z.ZodType> => {
  if (isObjectSchema(input)) return input.shape;
  const def = input._zod.def as { type: string; left?: z.ZodType; right?: z.ZodType; options?: z.ZodType[] };
  if (def.type === 'intersection' && def.left && def.right) {
    return { ...listedMembers(def.left), ...listedMembers(def.right) };
  }
  if (def.type !== 'union' || !def.options) return {};
  const members: Record<string, z.ZodType[]> = {};
  for (const option of def.options) {
    for (const [name, schema] of Object.entries(listedMembers(option))) {
      members[name] = [...(members[name] ?? []), schema];
    }
  }
  return Object.fromEntries(
    Object.entries(members).map(([name, [first, ...others]]) => [
      name,
      others.length === 0 ? (first as z.ZodType) : z.union([first as z.ZodType, ...others]),
    ]),
  );
};

/** The schema the SDK lists and checks a call against: the operation's input, with `idempotencyKey` on writes. */
const inputSchemaOf = (tool: ToolDefinition): z.ZodObject => {
  const input = isObjectSchema(tool.input) ? tool.input : z.object(listedMembers(tool.input)).strict();
  return tool.effect === 'read' ? input : input.extend({ idempotencyKey: idempotencyKeyArgument() });
};

/** The call checked against the alternatives of its input (the SDK checked it against their listing). */
const parseAlternatives = (tool: ToolDefinition, args: Record<string, unknown>): Record<string, unknown> => {
  const parsed = tool.input.safeParse(args);
  if (parsed.success) return parsed.data as Record<string, unknown>;
  throw new ValidationError(
    parsed.error.issues.map((issue) => ({ pointer: `/${issue.path.join('/')}`, message: issue.message })),
  );
};

/** Runs one tool call under its route's rules; every refusal becomes a tool error. */
export const callTool = async (
  tool: ToolDefinition,
  context: ToolContext,
  args: Record<string, unknown>,
): Promise<CallToolResult> => {
  const { idempotencyKey, ...listed } = args;
  try {
    const input = isObjectSchema(tool.input) ? listed : parseAlternatives(tool, listed);
    const { body, headers } = await withIdempotency(
      { companyId: context.auth.companyId, operationId: `mcp:${tool.name}`, params: {}, body: input },
      tool.effect === 'read' ? undefined : (idempotencyKey as string | undefined),
      async () => ({ status: 200, body: await tool.run(context, input) }),
      context.now,
    );
    const output = body as Record<string, unknown>;
    const replayed = headers?.['idempotent-replayed'] === 'true';
    return {
      structuredContent: output,
      content: [{ type: 'text', text: JSON.stringify(output) }],
      // The route's `Idempotent-Replayed: true`, for an agent's door: this result is the first call's.
      ...(replayed ? { _meta: { idempotentReplayed: true } } : {}),
    };
  } catch (error) {
    return toolError(error, tool, context);
  }
};

/** Whether the credential holds the scope of the tool's route. */
const permits = (tool: ToolDefinition, context: ToolContext): boolean => {
  const { scope } = tool.route;
  return scope === 'public' || scope === 'authenticated' || context.auth.scopes.includes(scope);
};

/** Whether the message is (or, as a batch, holds) a `tools/list` request. */
const listsTools = (message: unknown): boolean =>
  (Array.isArray(message) ? message : [message]).some(
    (m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'tools/list',
  );

/**
 * The server of one message. `tools/list` shows only the tools the credential's scopes allow (`listing`); a
 * call to any tool still reaches it, so a tool the credential cannot use answers the problem its route would
 * (`insufficient_scope`, naming the scope) rather than an unknown-tool error.
 */
const createServer = (Server: typeof McpServer, context: ToolContext, listing: boolean): McpServer => {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: NO_ELICITATION,
  });
  for (const tool of TOOLS()) {
    const registered = server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: `${tool.description} Scope: ${tool.route.scope}.`,
        inputSchema: inputSchemaOf(tool),
        outputSchema: tool.output,
        annotations: { title: tool.title, ...ANNOTATIONS[tool.effect], openWorldHint: false },
      },
      (input: Record<string, unknown>) => callTool(tool, context, input),
    );
    // Disabled before the server connects, so no list-changed notification is sent.
    if (listing && !permits(tool, context)) registered.disable();
  }
  // Registering a tool advertises `tools.listChanged`; the tool list is fixed per deployment and the server is
  // stateless (no stream to send the notification on), so the capability is withdrawn.
  server.server.registerCapabilities({ tools: { listChanged: false } });
  return server;
};

/** The JSON-RPC answer the route declares (`jsonRpcResponseSchema`). */
type JsonRpcAnswer = z.output<ReturnType<typeof jsonRpcResponseSchema>>;

/** The transport's answer is checked against the route's response schema, not assumed to match it. */
const isJsonRpcAnswer = (value: unknown): value is JsonRpcAnswer =>
  jsonRpcResponseSchema().safeParse(value).success;

/** A JSON-RPC answer (200), or an accepted notification (202, no body). */
export type McpAnswer = { status: 200; body: JsonRpcAnswer } | { status: 202 };

/**
 * The transport's own refusals (a message it cannot take, an unsupported `MCP-Protocol-Version`) become the
 * API's problem answers, with the JSON-RPC error message as their detail.
 */
const refusalOf = async (response: Response): Promise<AppError> => {
  let message = `The MCP message was refused (HTTP ${response.status}).`;
  try {
    const body = (await response.json()) as { error?: { message?: unknown } };
    if (typeof body.error?.message === 'string') message = body.error.message;
  } catch {
    // keep the generic message
  }
  if (response.status === 400) return new ValidationError([{ pointer: '/body', message }], message);
  logger.error('mcp transport refused a message', { status: response.status, message });
  return new AppError('internal', 'The request could not be completed.');
};

/**
 * Answers one parsed JSON-RPC message. The message was already read and checked by the route (size, media
 * type, shape); the transport gets it as `parsedBody`. We always answer JSON, so the request goes to the
 * transport accepting both media types the protocol names, whatever the client's `Accept` said.
 */
export const answerMcpMessage = async (
  message: unknown,
  headers: Record<string, string>,
  context: ToolContext,
): Promise<McpAnswer> => {
  const { McpServer: Server, WebStandardStreamableHTTPServerTransport } = await import('#lazy/mcp-sdk');
  const server = createServer(Server, context, listsTools(message));
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    const protocolVersion = headers['mcp-protocol-version'];
    const request = new Request('http://localhost/v1/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(protocolVersion === undefined ? {} : { 'mcp-protocol-version': protocolVersion }),
      },
      body: JSON.stringify(message),
    });
    const response = await transport.handleRequest(request, { parsedBody: message });
    if (response.status === 202) return { status: 202 };
    if (response.status !== 200) throw await refusalOf(response);
    const body: unknown = await response.json();
    if (!isJsonRpcAnswer(body)) {
      logger.error('mcp transport answered something other than a JSON-RPC answer');
      throw new AppError('internal', 'The request could not be completed.');
    }
    return { status: 200, body };
  } finally {
    await server.close();
  }
};
