import { describe, expect, it } from 'vitest';

// The switch is read once per process: set it before the modules read the environment.
process.env.V1_ALLOW_LOG_ENTRY_WRITES = 'true';
const { callTool } = await import('../../functions/shared/mcp/server');
const { TOOLS } = await import('../../functions/shared/mcp/tools');

const context = {
  auth: { companyId: 'co_test', authMethod: 'jwt' as const, keyId: 'jwt', scopes: [] },
  requestId: 'req-1',
  now: new Date(),
};

describe('V1_ALLOW_LOG_ENTRY_WRITES=true (self-hosted) on the MCP server', () => {
  it('lets log_entries writes through the guard, to the scope check, as on /v1', async () => {
    for (const name of ['create_dynadata_item', 'update_dynadata_item', 'delete_dynadata_item']) {
      const tool = TOOLS().find((t) => t.name === name);
      if (!tool) throw new Error(`no tool ${name}`);
      const result = await callTool(tool, context, { type: 'log_entries', id: 'x', item: { _id: 'x' } });
      expect(result.isError).toBe(true);
      const first = result.content[0];
      const problem = JSON.parse(first?.type === 'text' ? first.text : '{}') as { code: string };
      expect(problem.code).toBe('insufficient_scope');
    }
  });
});
