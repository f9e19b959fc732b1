/**
 * The names of the MCP server's tools, in the order `tools/list` shows them: the one list the `/v1/mcp`
 * route's description (`routes/mcp-routes.ts`) and the server's tool set (`mcp/tools.ts`) read, so the document
 * names every tool the server has. `test/unit/mcp-tool-names.test.ts` holds the tool set to this list.
 */
export const MCP_TOOL_NAMES = [
  'get_transcode_job',
  'get_transcription_job',
  'get_speech_job',
  'get_usage',
  'get_workflow_run',
  'list_workflows',
  'run_workflow',
  'list_workflow_runs',
  'list_dynadata_types',
  'list_dynadata_items',
  'get_dynadata_item',
  'create_dynadata_item',
  'update_dynadata_item',
  'delete_dynadata_item',
] as const;

export type McpToolName = (typeof MCP_TOOL_NAMES)[number];
