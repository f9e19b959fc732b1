import { describe, expect, it } from 'vitest';
import { TOOLS } from '../../functions/shared/mcp/tools';
import { MCP_ROUTES } from '../../functions/shared/routes/mcp-routes';
import { MCP_TOOL_NAMES } from '../../functions/shared/types/mcp-tools';

describe('the MCP tool names', () => {
  it('are the tool set of the server, in its order', () => {
    expect(TOOLS().map((tool) => tool.name)).toEqual([...MCP_TOOL_NAMES]);
  });

  it('are every one named in the /v1/mcp description of the document', () => {
    const description = MCP_ROUTES[0].description;
    for (const name of MCP_TOOL_NAMES) expect(description).toContain(`\`${name}\``);
  });
});
