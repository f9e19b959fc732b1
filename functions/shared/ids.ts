import { monotonicFactory, ulid as newUlid } from 'ulid';
import { lazy } from './lazy';

/**
 * A ULID (26 characters, Crockford base32): 48-bit millisecond time then 80 random bits, so ids sort by
 * creation time. Lowercased for use in URLs.
 */
export const ulid = (now: number = Date.now()): string => newUlid(now).toLowerCase();

// Made on the first monotonic id, not at load: most functions never make one.
const monotonic = /* @__PURE__ */ lazy(() => monotonicFactory());

/**
 * A ULID that sorts after every one this process made before, even within one millisecond (the random part
 * is incremented): for ids whose order must be the order of creation (events of one resource).
 */
export const monotonicUlid = (now: number = Date.now()): string => monotonic()(now).toLowerCase();

export const newCompanyId = (): string => `co_${ulid()}`;
export const newKeyId = (): string => `key_${ulid()}`;
