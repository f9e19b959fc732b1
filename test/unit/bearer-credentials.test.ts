import { describe, expect, it } from 'vitest';
import { BEARER_RESOURCES, presentedCredential } from '../../functions/authorizer/credentials';
import { apiResourcePath, ROUTES } from '../../functions/shared/routes/route-table';

const KEY = `sk-${'A'.repeat(43)}`;

describe('Authorization: Bearer (the MCP server only)', () => {
  it('is taken on exactly the resources of the routes open to any credential', () => {
    const mcp = ROUTES.filter((r) => r.scope === 'authenticated').map((r) => apiResourcePath(r.path));
    expect([...BEARER_RESOURCES].sort()).toEqual(mcp.sort());
  });

  it('reads an API key or a JWT, last in precedence', () => {
    const bearer = { bearer: true };
    expect(presentedCredential({ Authorization: `Bearer ${KEY}` }, bearer)).toEqual({
      header: 'authorization',
      kind: 'api_key',
      value: KEY,
    });
    expect(presentedCredential({ authorization: 'bearer a.b.c' }, bearer)).toMatchObject({
      kind: 'jwt',
      value: 'a.b.c',
    });
    for (const header of ['x-jwt-token', 'x-api-key', 'x-auth-token']) {
      expect(
        presentedCredential({ [header]: 'winner', authorization: `Bearer ${KEY}` }, bearer),
      ).toMatchObject({
        header,
        value: 'winner',
      });
    }
  });

  it('refuses another scheme as an empty credential, and is ignored elsewhere', () => {
    expect(presentedCredential({ authorization: `Basic ${KEY}` }, { bearer: true })?.value).toBe('');
    expect(presentedCredential({ authorization: 'Bearer' }, { bearer: true })?.value).toBe('');
    expect(presentedCredential({ authorization: `Bearer ${KEY}` })).toBeUndefined();
  });
});
