import { describe, expect, it } from 'vitest';
import { ambiguousCredentialHeader, presentedCredential } from '../../functions/authorizer/credentials';

describe('presentedCredential', () => {
  it('prefers x-jwt-token, then x-api-key, then x-auth-token', () => {
    expect(
      presentedCredential({ 'x-auth-token': 'sk-c', 'x-api-key': 'sk-b', 'x-jwt-token': 'a.b.c' }),
    ).toEqual({
      header: 'x-jwt-token',
      kind: 'jwt',
      value: 'a.b.c',
    });
    expect(presentedCredential({ 'x-auth-token': 'sk-c', 'X-Api-Key': 'sk-b' })).toMatchObject({
      header: 'x-api-key',
      value: 'sk-b',
    });
  });

  it('reads an sk- value in x-auth-token as an API key and anything else as a JWT', () => {
    expect(presentedCredential({ 'x-auth-token': 'sk-abc' })).toMatchObject({ kind: 'api_key' });
    expect(presentedCredential({ 'x-auth-token': 'eyJ.x.y' })).toMatchObject({ kind: 'jwt' });
  });

  it('treats an empty winning header as the credential (no fall-through)', () => {
    expect(presentedCredential({ 'x-api-key': '', 'x-auth-token': 'sk-valid' })).toMatchObject({
      header: 'x-api-key',
      value: '',
    });
  });

  it('returns nothing when no credential header is present', () => {
    expect(presentedCredential({ authorization: 'Bearer x' })).toBeUndefined();
    expect(presentedCredential(null)).toBeUndefined();
  });
});

describe('ambiguousCredentialHeader', () => {
  it('names a credential header sent twice, in any spelling, and a comma-joined pair', () => {
    expect(ambiguousCredentialHeader({ 'x-api-key': 'sk-b' }, { 'x-api-key': ['sk-a', 'sk-b'] })).toBe(
      'x-api-key',
    );
    expect(
      ambiguousCredentialHeader(
        { 'X-Api-Key': 'sk-a', 'x-api-key': 'sk-b' },
        { 'X-Api-Key': ['sk-a'], 'x-api-key': ['sk-b'] },
      ),
    ).toBe('x-api-key');
    expect(ambiguousCredentialHeader({ 'x-jwt-token': 'a.b.c, d.e.f' }, null)).toBe('x-jwt-token');
    expect(ambiguousCredentialHeader({ 'X-Auth-Token': 'x', 'x-auth-token': 'y' }, null)).toBe(
      'x-auth-token',
    );
    expect(
      ambiguousCredentialHeader({ Authorization: 'Bearer b' }, { Authorization: ['Bearer a', 'Bearer b'] }),
    ).toBe('authorization');
  });

  it('accepts one value per credential header, several credential headers and repeated other headers', () => {
    expect(
      ambiguousCredentialHeader(
        { 'x-api-key': 'sk-a', 'x-jwt-token': 'a.b.c', accept: 'b' },
        { 'x-api-key': ['sk-a'], 'x-jwt-token': ['a.b.c'], accept: ['a', 'b'] },
      ),
    ).toBeUndefined();
    expect(ambiguousCredentialHeader({ authorization: 'Digest a="1", b="2"' }, null)).toBeUndefined();
    expect(ambiguousCredentialHeader(null, null)).toBeUndefined();
  });
});
