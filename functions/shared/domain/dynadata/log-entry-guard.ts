import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { env } from '../../env';
import { AppError } from '../../errors';

/**
 * Writes to `log_entries` are refused with 403 `log_entry_writes_not_allowed` for every caller, whatever the
 * credential's scopes (so this runs before the router's scope check), unless the self-hosted switch
 * `V1_ALLOW_LOG_ENTRY_WRITES=true` is set.
 */
const WRITES = new Set([
  'POST /dynadata/type/{type}/create',
  'POST /dynadata/type/{type}/update',
  'DELETE /dynadata/type/{type}/item/{_id}',
]);

export const refuseLogEntryWrites = (): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> => ({
  before: ({ event }) => {
    if (event.pathParameters?.type !== 'log_entries' || env().allowLogEntryWrites) return;
    if (!WRITES.has(`${event.httpMethod} ${event.resource}`)) return;
    throw new AppError(
      'log_entry_writes_not_allowed',
      'log_entries is the read-only audit trail of your API traffic; keep your own records in a type you own.',
    );
  },
});
