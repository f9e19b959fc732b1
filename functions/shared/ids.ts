import { ulid as newUlid } from 'ulid';

/**
 * A ULID (26 characters, Crockford base32): 48-bit millisecond time then 80 random bits, so ids sort by
 * creation time. Lowercased for use in URLs.
 */
export const ulid = (now: number = Date.now()): string => newUlid(now).toLowerCase();

export const newCompanyId = (): string => `co_${ulid()}`;
export const newKeyId = (): string => `key_${ulid()}`;
