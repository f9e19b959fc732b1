import type { APIGatewayProxyEvent } from 'aws-lambda';
import { AppError } from '../errors';
import type { AuthContext, CompanyProfileHint } from '../types/auth';
import { parseScopeList } from '../types/scopes';

const optionalNumbers = [
  'apiRequestsPerMonth',
  'maxObjectBytes',
  'storageBytesLimit',
  'requestsPerSecond',
  'burst',
  'tokenExpiresAt',
] as const;

/** Authorizer context values must be strings, numbers or booleans. */
export const toAuthorizerContext = (auth: AuthContext): Record<string, string> => ({
  companyId: auth.companyId,
  authMethod: auth.authMethod,
  keyId: auth.keyId,
  scopes: auth.scopes.join(','),
  ...Object.fromEntries(
    optionalNumbers.flatMap((name) => (auth[name] === undefined ? [] : [[name, String(auth[name])]])),
  ),
  ...(auth.planId === undefined ? {} : { planId: auth.planId }),
  ...(auth.profile === undefined
    ? {}
    : {
        companyName: auth.profile.name,
        companyCreatedAt: auth.profile.createdAt,
        subscriptionAnchor: auth.profile.subscriptionAnchor,
        subscriptionStatus: auth.profile.subscriptionStatus,
      }),
  ...(auth.source === undefined ? {} : { source: auth.source }),
  // Allow-list entries hold no space: joined with one.
  ...(auth.tokenIps === undefined ? {} : { tokenIps: auth.tokenIps.join(' ') }),
  ...(auth.tokenAncestors?.length ? { tokenAncestors: auth.tokenAncestors.join(' ') } : {}),
});

const SUBSCRIPTION_STATUSES = ['active', 'past_due', 'canceled'] as const;

/** The company profile the authorizer passed, when every member of it is there. */
const profileOf = (ctx: Record<string, unknown> | null | undefined): { profile?: CompanyProfileHint } => {
  const { companyName, companyCreatedAt, subscriptionAnchor, subscriptionStatus } = ctx ?? {};
  const status = SUBSCRIPTION_STATUSES.find((s) => s === subscriptionStatus);
  if (
    typeof companyName !== 'string' ||
    typeof companyCreatedAt !== 'string' ||
    typeof subscriptionAnchor !== 'string' ||
    status === undefined
  )
    return {};
  return {
    profile: {
      name: companyName,
      createdAt: companyCreatedAt,
      subscriptionAnchor,
      subscriptionStatus: status,
    },
  };
};

export const readAuthContext = (event: APIGatewayProxyEvent): AuthContext => {
  const ctx = event.requestContext.authorizer as Record<string, unknown> | null | undefined;
  const companyId = ctx?.companyId;
  const authMethod = ctx?.authMethod;
  if (
    typeof companyId !== 'string' ||
    companyId === '' ||
    (authMethod !== 'api_key' && authMethod !== 'jwt')
  ) {
    // Only reachable when a route is deployed without the authorizer: refuse rather than guess.
    throw new AppError('unauthorized', 'The request carries no verified credential.');
  }
  return {
    companyId,
    authMethod,
    keyId: typeof ctx?.keyId === 'string' ? ctx.keyId : '',
    scopes: parseScopeList(typeof ctx?.scopes === 'string' ? ctx.scopes : '').scopes,
    ...Object.fromEntries(
      optionalNumbers.flatMap((name) => (ctx?.[name] === undefined ? [] : [[name, Number(ctx[name])]])),
    ),
    ...(typeof ctx?.planId === 'string' && ctx.planId !== '' ? { planId: ctx.planId } : {}),
    ...profileOf(ctx),
    ...(typeof ctx?.source === 'string' && ctx.source !== '' ? { source: ctx.source } : {}),
    ...(typeof ctx?.tokenIps === 'string' && ctx.tokenIps !== ''
      ? { tokenIps: ctx.tokenIps.split(' ') }
      : {}),
    ...(typeof ctx?.tokenAncestors === 'string' && ctx.tokenAncestors !== ''
      ? { tokenAncestors: ctx.tokenAncestors.split(' ') }
      : {}),
  };
};
