import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonical } from '../../canonical-json';
import { ValidationError } from '../../errors';

/**
 * List and count cursors: opaque, HMAC-bound (with the secret of `cursor-key.ts`) to the query they continue
 * (company, type, filter, sort), so another tenant's or another query's cursor is refused with 400 at
 * `/body/cursor`. A cursor carries the DynamoDB key of the last item read, so page 500 costs what page 1 costs.
 */
const mac = (key: string, text: string): Buffer => createHmac('sha256', key).update(text).digest();

export const queryFingerprint = (
  companyId: string,
  typeName: string,
  filter: unknown,
  sort: unknown,
): string => JSON.stringify([companyId, typeName, canonical(filter ?? null), canonical(sort)]);

export const encodeCursor = (secret: string, fingerprint: string, key: Record<string, unknown>): string => {
  const payload = Buffer.from(JSON.stringify(key)).toString('base64url');
  const tag = mac(secret, `${fingerprint}\n${payload}`).toString('base64url');
  return `${payload}.${tag}`;
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
  const [payload, tag, extra] = cursor.split('.');
  if (!payload || !tag || extra !== undefined) throw badCursor();
  const expected = mac(secret, `${fingerprint}\n${payload}`);
  const given = Buffer.from(tag, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw badCursor();
  try {
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    throw badCursor();
  }
};
