import type { APIGatewayProxyEvent } from 'aws-lambda';
import { AppError } from '../errors';
import type { AuthContext } from '../types/auth';
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
  ...(auth.source === undefined ? {} : { source: auth.source }),
  // Allow-list entries hold no space: joined with one.
  ...(auth.tokenIps === undefined ? {} : { tokenIps: auth.tokenIps.join(' ') }),
  ...(auth.tokenAncestors?.length ? { tokenAncestors: auth.tokenAncestors.join(' ') } : {}),
});

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
    ...(typeof ctx?.source === 'string' && ctx.source !== '' ? { source: ctx.source } : {}),
    ...(typeof ctx?.tokenIps === 'string' && ctx.tokenIps !== ''
      ? { tokenIps: ctx.tokenIps.split(' ') }
      : {}),
    ...(typeof ctx?.tokenAncestors === 'string' && ctx.tokenAncestors !== ''
      ? { tokenAncestors: ctx.tokenAncestors.split(' ') }
      : {}),
  };
};
