import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { toAuthorizerContext } from '../shared/http/auth-context';
import { logger } from '../shared/logger';
import { authenticate } from './authenticate';
import { companyAccess } from './company-access';
import { presentedCredential } from './credentials';

/**
 * Lambda REQUEST authorizer. Gateway caching is off (any of three headers may carry the credential), so the
 * decision is made per request. A refusal throws `Unauthorized`, which API Gateway answers with its 401
 * gateway response (problem+json); an allowed caller gets an Allow policy for this method plus the context
 * the route handlers read (companyId, authMethod, keyId, scopes).
 */
export const handler = async (
  event: APIGatewayRequestAuthorizerEvent,
): Promise<APIGatewayAuthorizerResult> => {
  const credential = presentedCredential(event.headers);
  // The caller's address as API Gateway saw it at the edge; forwarded headers are never trusted.
  const outcome = await authenticate(credential, event.requestContext.identity?.sourceIp ?? '');
  if (!outcome.ok) {
    logger.info('credential refused', {
      requestId: event.requestContext.requestId,
      header: credential?.header,
      reason: outcome.reason,
    });
    throw new Error('Unauthorized');
  }
  // A company that is suspended or gone may not call, whatever its credential says.
  const access = await companyAccess(outcome.auth.companyId, Date.now());
  if (!access.active) {
    logger.info('company not active', {
      requestId: event.requestContext.requestId,
      companyId: outcome.auth.companyId,
    });
    throw new Error('Unauthorized');
  }
  return {
    principalId: outcome.auth.companyId,
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
    }),
  };
};
