import { createHash } from 'node:crypto';

/**
 * In-memory cache of authorizer decisions, keyed by a hash of the credential (never the credential itself).
 * Bounded in entries (least recently used goes first) and in age, so a revoked key stops working within
 * `ttlMs`. API Gateway's own authorizer cache is off (see the authorizer), so this is the only cache.
 */
export interface DecisionCache<V> {
  get: (key: string, now: number) => V | undefined;
  set: (key: string, value: V, now: number) => void;
  size: () => number;
}

export const DECISION_MAX_ENTRIES = 5_000;

export const createDecisionCache = <V>(
  ttlMs: number,
  maxEntries = DECISION_MAX_ENTRIES,
): DecisionCache<V> => {
  const entries = new Map<string, { value: V; expiresAt: number }>();
  return {
    get: (key, now) => {
      const entry = entries.get(key);
      if (!entry) return undefined;
      entries.delete(key);
      if (entry.expiresAt <= now) return undefined;
      entries.set(key, entry); // most recently used goes last
      return entry.value;
    },
    set: (key, value, now) => {
      entries.delete(key);
      entries.set(key, { value, expiresAt: now + ttlMs });
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest === undefined) break;
        entries.delete(oldest);
      }
    },
    size: () => entries.size,
  };
};

export const credentialCacheKey = (kind: string, value: string, scope = ''): string =>
  createHash('sha256').update(`${kind}\u0000${value}\u0000${scope}`).digest('base64url');
