import { createHash } from 'node:crypto';
import { encodeTime, monotonicFactory, ulid as newUlid, TIME_MAX } from 'ulid';
import { lazy } from './lazy';

/**
 * A ULID (26 characters, Crockford base32): 48-bit millisecond time then 80 random bits, so ids sort by
 * creation time. Lowercased for use in URLs.
 */
export const ulid = (now: number = Date.now()): string => newUlid(now).toLowerCase();

/**
 * The first 10 characters of every ULID made at `epochMs` (its time, lowercased like `ulid`): the ids of one
 * instant share it, so a time range of ids is a range of text. Times before 1970 or past the ULID's last
 * millisecond (year 10889) are clamped to those ends.
 */
export const ulidTimePrefix = (epochMs: number): string =>
  encodeTime(Math.min(Math.max(Math.floor(epochMs), 0), TIME_MAX)).toLowerCase();

// Made on the first monotonic id, not at load: most functions never make one.
const monotonic = /* @__PURE__ */ lazy(() => monotonicFactory());

/**
 * A ULID that sorts after every one this process made before, even within one millisecond (the random part
 * is incremented): for ids whose order must be the order of creation (events of one resource).
 */
export const monotonicUlid = (now: number = Date.now()): string => monotonic()(now).toLowerCase();

export const newCompanyId = (): string => `co_${ulid()}`;
export const newKeyId = (): string => `key_${ulid()}`;

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * A ULID of `epochMs` whose random part is derived from `seed` (its SHA-256's first 80 bits): the same seed
 * and time always give the same id, so an id made from a stream record's id is the same when the record is
 * handled again.
 */
export const derivedUlid = (epochMs: number, seed: string): string => {
  const digest = createHash('sha256').update(seed).digest();
  let bits = 0n;
  for (const byte of digest.subarray(0, 10)) bits = (bits << 8n) | BigInt(byte);
  let random = '';
  for (let i = 0; i < 16; i++) {
    random = CROCKFORD[Number(bits & 31n)] + random;
    bits >>= 5n;
  }
  return ulidTimePrefix(epochMs) + random;
};
