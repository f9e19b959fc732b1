import { describe, expect, it } from 'vitest';
import { AppError } from '../../functions/shared/errors';

delete process.env.V1_ALLOW_LOG_ENTRY_WRITES;
const { builtinType, requireWritable } = await import('../../functions/shared/domain/dynadata/types');

describe('log_entries by default', () => {
  it('is read-only with 403 log_entry_writes_not_allowed', () => {
    const logEntries = builtinType('log_entries');
    expect(logEntries?.writable).toBe(false);
    let caught: unknown;
    try {
      requireWritable(logEntries as NonNullable<typeof logEntries>);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).code).toBe('log_entry_writes_not_allowed');
    expect((caught as AppError).status).toBe(403);
  });
});
