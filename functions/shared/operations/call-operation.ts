import { refuseLogEntryWrites } from '../http/log-entry-guard';
import { type RouteHandler, type RouteInput, requireRouteScope } from '../http/router';
import type { RouteDefinition } from '../routes/route-definition';
import type { OperationId } from '../routes/route-table';
import type { AuthContext } from '../types/auth';
import { httpPartsOf, refuseRawAnswer, withInputPointers } from './operation-input';

/** A call of an operation at a door that is not HTTP (an MCP tool, a workflow step). */
export interface OperationCall {
  auth: AuthContext;
  /** The operation's input (`operationInput`), already parsed. */
  input: Record<string, unknown>;
  now: Date;
  requestId: string;
  /** Headers the handler may read: the workflow hop; never `If-Match` (the doors do not send one). */
  headers: Record<string, string>;
}

/**
 * Runs the operation's own handler under its route's rules, as the router does: the log-entry guard where
 * the route writes items (before the scope check, as on the route), the route's scope, then the handler with
 * the input split back into path, query and body. Answers the JSON answer; a refusal points into the input.
 */
export const callOperation = async (
  route: RouteDefinition,
  handler: RouteHandler<OperationId>,
  call: OperationCall,
): Promise<unknown> => {
  if (route.writesItemsOfType) refuseLogEntryWrites(call.input.type as string | undefined);
  requireRouteScope(route, call.auth);
  const { params, query, body } = httpPartsOf(route, call.input);
  try {
    const result = await handler({
      params,
      query,
      body,
      auth: call.auth,
      requestId: call.requestId,
      headers: call.headers,
      now: call.now,
    } as RouteInput<OperationId>);
    return result.raw === undefined ? result.body : refuseRawAnswer(route);
  } catch (error) {
    throw withInputPointers(route, error);
  }
};
