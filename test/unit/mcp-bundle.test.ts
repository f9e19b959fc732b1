import { execSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { McpAnswer } from '../../functions/shared/mcp/server';
import { lazyModuleCommands } from '../../lib/constructs/app-function';
import { LAZY_MODULE_ALIASES, LAZY_MODULES } from '../../lib/constructs/route-group';
import { buildGroupBundle } from '../fixtures/group-bundle';

/**
 * The MCP group is bundled with the SDK built beside it as a lazy module (`#lazy/mcp-sdk`, with zod of its
 * own), and the SDK's zod 3 support and default JSON Schema validator (ajv) aliased to a module that throws:
 * this bundles the MCP server and builds its lazy modules the same way, answers `tools/list` with them, which
 * converts every tool's zod schemas (built by the bundle's zod) to JSON Schema with the SDK's zod, the path
 * that would reach the aliased modules if any schema were zod 3, and must list what the source lists, and
 * calls a tool, which builds the server with its own validator and checks the arguments.
 */
const root = join(import.meta.dirname, '..', '..');
mkdirSync(join(root, 'cdk.out'), { recursive: true });
const dir = mkdtempSync(join(root, 'cdk.out', 'mcp-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The `result` of a JSON-RPC answer (none for a notification's 202). */
const resultOf = (answer: McpAnswer) => (answer.status === 200 ? answer.body.result : undefined);

describe('the MCP server as the group bundles it', () => {
  it('lists every tool with its schemas', { timeout: 60_000 }, async () => {
    const entry = join(dir, 'entry.ts');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      entry,
      `export { answerMcpMessage } from '${join(root, 'functions/shared/mcp/server.ts')}';\n`,
    );
    const outfile = join(dir, 'server.mjs');
    const metafile = await buildGroupBundle(entry, outfile, LAZY_MODULES.mcp ?? []);
    const inputs = Object.keys(metafile.inputs);
    expect(inputs.filter((path) => /node_modules\/@modelcontextprotocol\//.test(path))).toEqual([]);
    for (const command of lazyModuleCommands(LAZY_MODULES.mcp ?? [], dir, LAZY_MODULE_ALIASES))
      execSync(command, { stdio: 'pipe' });
    const { readFileSync } = await import('node:fs');
    const sdkModule = readFileSync(join(dir, 'lazy', 'mcp-sdk.mjs'), 'utf8');
    // The aliased modules' own code is not in the SDK's lazy module (ajv's code generator, zod 3's classes).
    expect(sdkModule).not.toContain('ajv-formats');
    expect(sdkModule).not.toContain('ZodEffects');
    const { answerMcpMessage } = (await import(
      pathToFileURL(outfile).href
    )) as typeof import('../../functions/shared/mcp/server');
    const auth = { companyId: 'co_unit', authMethod: 'api_key' as const, keyId: 'k', scopes: [] };
    // `tools/list` shows only the tools the credential's scopes allow: every one for every scope.
    const { SCOPES } = await import('../../functions/shared/types/scopes');
    const lister = { ...auth, scopes: [...SCOPES] };
    const answer = await answerMcpMessage(
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      {},
      { auth: lister, requestId: 'req', now: new Date() },
    );
    expect(answer.status).toBe(200);
    const { tools } = resultOf(answer) as { tools: Record<string, unknown>[] };
    const { TOOLS } = await import('../../functions/shared/mcp/tools');
    expect(tools.map((t) => t.name)).toEqual(TOOLS().map((t) => t.name));
    // The same list, schemas and all, as the source answers with one copy of zod.
    const source = await import('../../functions/shared/mcp/server');
    const fromSource = await source.answerMcpMessage(
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      {},
      { auth: lister, requestId: 'req', now: new Date() },
    );
    expect(answer).toEqual(fromSource);
    for (const tool of tools) {
      expect(tool.inputSchema, String(tool.name)).toMatchObject({ type: 'object' });
      expect(tool.outputSchema, String(tool.name)).toMatchObject({ type: 'object' });
    }
    // A call validates its arguments with the tool's zod schema, then refuses the missing scope.
    const call = await answerMcpMessage(
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_usage', arguments: {} } },
      {},
      { auth, requestId: 'req', now: new Date() },
    );
    const result = resultOf(call) as { isError: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0]?.text ?? '{}')).toMatchObject({ code: 'insufficient_scope' });
    const invalid = await answerMcpMessage(
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'get_usage', arguments: { granularity: 1 } },
      },
      {},
      { auth, requestId: 'req', now: new Date() },
    );
    expect(JSON.stringify(invalid)).toContain('Input validation error');
  });
});
