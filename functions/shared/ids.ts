import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A ULID (26 characters, Crockford base32): 48-bit millisecond time then 80 random bits, so ids sort by
 * creation time. Lowercased for use in URLs.
 */
export const ulid = (now: number = Date.now()): string => {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(16);
  let random = '';
  for (let i = 0; i < 16; i++) random += CROCKFORD[(bytes[i] ?? 0) % 32];
  return (time + random).toLowerCase();
};

export const newCompanyId = (): string => `co_${ulid()}`;
export const newKeyId = (): string => `key_${ulid()}`;
