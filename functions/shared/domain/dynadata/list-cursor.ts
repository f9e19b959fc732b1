import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { canonical } from '../../canonical-json';
import { ValidationError } from '../../errors';

/**
 * List and count cursors: sealed with AES-256-GCM under a key derived from the secret of `cursor-key.ts`, with
 * the query they continue (company, type, filter, sort) as associated data, so a cursor is opaque (it shows
 * none of the table's keys or the values it sorts by), cannot be altered, and another tenant's or another
 * query's cursor is refused with 400 at `/body/cursor`. A cursor carries the DynamoDB key of the last item
 * read, so page 500 costs what page 1 costs.
 */
const IV_BYTES = 12;
const TAG_BYTES = 16;
const keys = new Map<string, Buffer>();
const sealingKey = (secret: string): Buffer => {
  let key = keys.get(secret);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', secret, 'dynadata-list-cursor', 'aes-256-gcm', 32));
    keys.set(secret, key);
  }
  return key;
};

export const queryFingerprint = (
  companyId: string,
  typeName: string,
  filter: unknown,
  sort: unknown,
): string => JSON.stringify([companyId, typeName, canonical(filter ?? null), canonical(sort)]);

export const encodeCursor = (secret: string, fingerprint: string, key: Record<string, unknown>): string => {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(secret), iv).setAAD(Buffer.from(fingerprint));
  const sealed = Buffer.concat([cipher.update(JSON.stringify(key), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
};

export const badCursor = (): ValidationError =>
  new ValidationError(
    [{ pointer: '/body/cursor', message: 'is not a cursor of this query; start again without a cursor' }],
    'The cursor is not valid for this query.',
  );

export const decodeCursor = (
  secret: string,
  fingerprint: string,
  cursor: string,
): Record<string, unknown> => {
  const bytes = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url') : Buffer.alloc(0);
  if (bytes.length <= IV_BYTES + TAG_BYTES) throw badCursor();
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealingKey(secret), bytes.subarray(0, IV_BYTES))
      .setAAD(Buffer.from(fingerprint))
      .setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    const text = Buffer.concat([
      decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
    const key: unknown = JSON.parse(text);
    if (typeof key !== 'object' || key === null || Array.isArray(key)) throw badCursor();
    return key as Record<string, unknown>;
  } catch {
    throw badCursor();
  }
};
