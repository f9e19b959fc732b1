import '../../shared/domain/dynadata/builtin-functions';
import { assertCursorKeyConfigured } from '../../shared/domain/dynadata/cursor-key';
import { createApiHandler } from '../../shared/http/middleware';
import { answerMcpMessage } from '../../shared/mcp/server';
import { registerWorkflowActions } from '../../shared/operations/workflow-actions';
import { MCP_ROUTES } from '../../shared/routes/mcp-routes';
import { workflowHopOf } from '../../shared/workflow-hops';

// `list_dynadata_items` signs its cursors like the list route: without a configured key the function refuses
// to start. The built-in functions are registered so `list_dynadata_types` lists them as the route does.
assertCursorKeyConfigured();
// `run_workflow` runs the steps of a sync run here.
registerWorkflowActions();

/**
 * POST /v1/mcp: the shared chain (credential, `api_requests` meter, problem answers) around the MCP server.
 * One HTTP request is one JSON-RPC message and counts as one `api_requests`, whatever it asks.
 */
export const handler = createApiHandler('mcp', MCP_ROUTES, {
  mcp: async ({ auth, body, headers, requestId }) => {
    const answer = await answerMcpMessage(body, headers, {
      auth,
      requestId,
      now: new Date(),
      hop: workflowHopOf(headers),
    });
    return answer.status === 202 ? { status: 202, body: undefined, raw: '' } : answer;
  },
});
