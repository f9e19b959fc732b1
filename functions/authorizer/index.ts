import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { toAuthorizerContext } from '../shared/http/auth-context';
import { logger } from '../shared/observability/logger';
import { createHandler } from '../shared/pipeline/handler';
import { type AuthOutcome, authenticate } from './authenticate';
import { companyAccess } from './company-access';
import { ambiguousCredentialHeader, BEARER_RESOURCES, presentedCredential } from './credentials';
import { usageIdentifierFor } from './usage-plan-keys';

/**
 * Lambda REQUEST authorizer. Gateway caching is off (any of three headers may carry the credential), so the
 * decision is made per request. A credential header sent twice is refused before anything is read. A refusal throws `Unauthorized`, which API Gateway answers with its 401
 * gateway response (problem+json); an allowed caller gets an Allow policy for this method plus the context
 * the route handlers read (companyId, authMethod, keyId, scopes).
 */
const authorize = async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
  const ambiguous = ambiguousCredentialHeader(event.headers, event.multiValueHeaders);
  const credential = ambiguous
    ? undefined
    : presentedCredential(event.headers, { bearer: BEARER_RESOURCES.includes(event.resource) });
  // The caller's address as API Gateway saw it at the edge; forwarded headers are never trusted.
  const outcome: AuthOutcome = ambiguous
    ? { ok: false, reason: 'ambiguous' }
    : await authenticate(credential, event.requestContext.identity?.sourceIp ?? '');
  if (!outcome.ok) {
    logger.info('credential refused', {
      header: credential?.header ?? ambiguous,
      reason: outcome.reason,
    });
    throw new Error('Unauthorized');
  }
  // A company that is suspended or gone may not call, whatever its credential says.
  const access = await companyAccess(outcome.auth.companyId, Date.now());
  if (!access.active) {
    logger.info('company not active', { companyId: outcome.auth.companyId });
    throw new Error('Unauthorized');
  }
  const usageIdentifierKey = usageIdentifierFor(access.planId, access.usageKey);
  return {
    principalId: outcome.auth.companyId,
    // The company's key in the usage plan whose throttle is its plan's request rate (`request-rates.ts`).
    ...(usageIdentifierKey === undefined ? {} : { usageIdentifierKey }),
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: event.methodArn }],
    },
    context: toAuthorizerContext({
      ...outcome.auth,
      apiRequestsPerMonth: access.apiRequestsPerMonth,
      planId: access.planId,
      maxObjectBytes: access.maxObjectBytes,
      storageBytesLimit: access.storageBytesLimit,
      requestsPerSecond: access.requestsPerSecond,
      burst: access.burst,
      profile: access.profile,
    }),
  };
};

/** Every log line of the decision carries the gateway's `requestId`, the one the access log and API use. */
export const handler = createHandler(authorize, (event: APIGatewayRequestAuthorizerEvent) => ({
  requestId: event.requestContext.requestId,
}));
