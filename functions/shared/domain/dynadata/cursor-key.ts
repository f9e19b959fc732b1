import { env } from '../../env';

/**
 * The HMAC key of list cursors. On AWS it lives in a generated Secrets Manager secret
 * (`DYNADATA_CURSOR_SECRET_ARN`), read on first use and kept for the life of the process (Powertools
 * Parameters, `aws/secrets-manager.ts`); the local stack generates a random key under its
 * data directory and passes it as `DYNADATA_CURSOR_SECRET`. There is no fallback: a function without a key
 * refuses to list (a key derived from public facts such as the table name would let anyone forge cursors).
 */
export class CursorKeyMissingError extends Error {
  constructor() {
    super('No list-cursor key is configured (DYNADATA_CURSOR_SECRET_ARN or DYNADATA_CURSOR_SECRET)');
    this.name = 'CursorKeyMissingError';
  }
}

/** The key: the secret's value (kept by `readSecretString`; a failed read is retried), or the local one. */
export const loadCursorKey = async (): Promise<string> => {
  const { cursorSecretArn, cursorSecret } = env();
  if (cursorSecretArn) {
    const { readSecretString } = await import('../../aws/secrets-manager');
    const value = await readSecretString(cursorSecretArn, { maxAgeSeconds: Number.POSITIVE_INFINITY });
    if (value.length < 16) throw new Error('The list-cursor key secret is too short');
    return value;
  }
  if (cursorSecret) return cursorSecret;
  throw new CursorKeyMissingError();
};

/** Throws at once when no key is configured (called when a group that lists starts). */
export const assertCursorKeyConfigured = (): void => {
  const { cursorSecretArn, cursorSecret } = env();
  if (!cursorSecretArn && !cursorSecret) throw new CursorKeyMissingError();
};
