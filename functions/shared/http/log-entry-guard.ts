import { env } from '../env';
import { AppError } from '../errors';

/**
 * Writes to `log_entries` are refused with 403 `log_entry_writes_not_allowed` for every caller, whatever the
 * credential's scopes (so the router runs this before its scope check), on the routes whose table entry says
 * `writesItemsOfType: true`, unless the self-hosted switch `V1_ALLOW_LOG_ENTRY_WRITES=true` is set.
 */
export const refuseLogEntryWrites = (typeName: string | undefined): void => {
  if (typeName !== 'log_entries' || env().allowLogEntryWrites) return;
  throw new AppError(
    'log_entry_writes_not_allowed',
    'log_entries is the read-only audit trail of your API traffic; keep your own records in a type you own.',
  );
};
