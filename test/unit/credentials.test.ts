import { describe, expect, it } from 'vitest';
import { presentedCredential } from '../../functions/authorizer/credentials';

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
