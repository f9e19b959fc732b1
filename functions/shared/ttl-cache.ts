/**
 * The one in-memory cache of a Lambda process: bounded in entries (the least recently used goes first) and
 * in age (`ttlMs`), so what it holds is at most `ttlMs` old. Used for authorizer decisions, companies, plans,
 * Dynadata types and log retention. `now` is passed in (epoch ms) so callers and tests control time.
 */
export interface TtlCache<V> {
  get: (key: string, now: number) => V | undefined;
  set: (key: string, value: V, now: number) => void;
  delete: (key: string) => void;
  size: () => number;
}

export const DEFAULT_MAX_ENTRIES = 5_000;

export const createTtlCache = <V>(ttlMs: number, maxEntries = DEFAULT_MAX_ENTRIES): TtlCache<V> => {
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
    delete: (key) => {
      entries.delete(key);
    },
    size: () => entries.size,
  };
};

/** The cached value of `key`, or the value `load` gives (cached unless it is undefined). */
export const cachedOrLoad = async <V>(
  cache: TtlCache<V>,
  key: string,
  now: number,
  load: () => Promise<V | undefined>,
): Promise<V | undefined> => {
  const hit = cache.get(key, now);
  if (hit !== undefined) return hit;
  const value = await load();
  if (value !== undefined) cache.set(key, value, now);
  return value;
};
