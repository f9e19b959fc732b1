import { describe, expect, it } from 'vitest';

// The switch is read once per process: set it before the modules read the environment.
process.env.V1_ALLOW_LOG_ENTRY_WRITES = 'true';
const { builtinType, requireWritable } = await import('../../functions/shared/domain/dynadata/types');

describe('V1_ALLOW_LOG_ENTRY_WRITES=true (self-hosted)', () => {
  it('makes log_entries writable again, and only log_entries', () => {
    const logEntries = builtinType('log_entries');
    expect(logEntries?.writable).toBe(true);
    expect(() => requireWritable(logEntries as NonNullable<typeof logEntries>)).not.toThrow();
    const messages = builtinType('messages');
    expect(() => requireWritable(messages as NonNullable<typeof messages>)).toThrow(/read-only/);
  });
});
