import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import type { McpAnswer } from '../../functions/shared/mcp/server';
import { RUNTIME_PROVIDED_MODULES } from '../../lib/constructs/app-function';
import { GROUP_ALIASES, LAZY_MODULES } from '../../lib/constructs/route-group';

/**
 * The MCP group is bundled with the SDK's zod 3 support and default JSON Schema validator (ajv) aliased to a
 * module that throws: this bundles the MCP server the same way and answers `tools/list` with it, which
 * converts every tool's zod schemas to JSON Schema, the path that would reach the aliased modules if any
 * schema were zod 3, and calls a tool, which builds the server with its own validator.
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
    const { metafile } = await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      minify: true,
      outfile,
      mainFields: ['module', 'main'],
      external: [...RUNTIME_PROVIDED_MODULES, ...(LAZY_MODULES.mcp ?? [])],
      metafile: true,
      alias: Object.fromEntries(
        Object.entries(GROUP_ALIASES.mcp ?? {}).map(([from, to]) => [from, join(root, to)]),
      ),
      banner: {
        js: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
      },
      logLevel: 'error',
    });
    const inputs = Object.keys(metafile.inputs);
    expect(
      inputs.filter((path) => /node_modules\/(ajv|ajv-formats|zod-to-json-schema)\//.test(path)),
    ).toEqual([]);
    const { answerMcpMessage } = (await import(
      pathToFileURL(outfile).href
    )) as typeof import('../../functions/shared/mcp/server');
    const auth = { companyId: 'co_unit', authMethod: 'api_key' as const, keyId: 'k', scopes: [] };
    const answer = await answerMcpMessage(
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      {},
      { auth, requestId: 'req', now: new Date() },
    );
    expect(answer.status).toBe(200);
    const { tools } = resultOf(answer) as { tools: Record<string, unknown>[] };
    const { TOOLS } = await import('../../functions/shared/mcp/tools');
    expect(tools.map((t) => t.name)).toEqual(TOOLS().map((t) => t.name));
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
