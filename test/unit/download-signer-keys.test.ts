import { describe, expect, it } from 'vitest';
import { currentSignerKey, parseSignerKeySet } from '../../functions/shared/aws/download-signer-keys';

const key = (id: string, createdAt: string) => ({ accessKeyId: id, secretAccessKey: `s-${id}`, createdAt });

describe('download signer key set', () => {
  it('signs with the newest key, whatever the order the secret lists them in', () => {
    const set = parseSignerKeySet(
      JSON.stringify({ keys: [key('NEW', '2026-02-01T00:00:00Z'), key('OLD', '2026-01-01T00:00:00Z')] }),
    );
    expect(set.keys.map((k) => k.accessKeyId)).toEqual(['OLD', 'NEW']);
    expect(currentSignerKey(set).accessKeyId).toBe('NEW');
  });

  it('refuses a value that is not a key set, and a set without a key', () => {
    expect(() => parseSignerKeySet(JSON.stringify({ accessKeyId: 'A', secretAccessKey: 'B' }))).toThrow(
      /key set/,
    );
    expect(() => parseSignerKeySet(JSON.stringify({ keys: [{ accessKeyId: 'A' }] }))).toThrow(/key set/);
    expect(() => currentSignerKey(parseSignerKeySet('{"keys":[]}'))).toThrow(/first rotation/);
  });
});
