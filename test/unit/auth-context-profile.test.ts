import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { readAuthContext, toAuthorizerContext } from '../../functions/shared/http/auth-context';
import type { AuthContext } from '../../functions/shared/types/auth';

const eventWith = (context: Record<string, string>) =>
  ({ requestContext: { authorizer: context } }) as unknown as APIGatewayProxyEvent;

const auth: AuthContext = {
  companyId: 'co_1',
  authMethod: 'api_key',
  keyId: 'key_1',
  scopes: ['company:read'],
  planId: 'starter',
  profile: {
    name: 'Acme, "Ltd"',
    createdAt: '2026-01-02T03:04:05.000Z',
    subscriptionAnchor: '2026-01-02T00:00:00.000Z',
    subscriptionStatus: 'past_due',
  },
};

describe('the company profile the authorizer passes to the route', () => {
  it('reads back what the authorizer wrote, as strings in the context', () => {
    const context = toAuthorizerContext(auth);
    for (const value of Object.values(context)) expect(typeof value).toBe('string');
    expect(readAuthContext(eventWith(context)).profile).toEqual(auth.profile);
  });

  it('passes no profile when a member is missing or not one of its values', () => {
    const context = toAuthorizerContext(auth);
    const { companyName: _, ...withoutName } = context;
    expect(readAuthContext(eventWith(withoutName)).profile).toBeUndefined();
    expect(readAuthContext(eventWith({ ...context, subscriptionStatus: 'paused' })).profile).toBeUndefined();
  });
});
