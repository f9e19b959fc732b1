import type { APIGatewayAuthorizerResult } from 'aws-lambda';

/** Does an IAM policy of the authorizer allow invoking this method ARN? (Explicit Deny wins.) */
export const policyAllows = (result: APIGatewayAuthorizerResult, methodArn: string): boolean => {
  const matches = (pattern: string) =>
    new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*')}$`).test(methodArn);
  const statements = result.policyDocument?.Statement ?? [];
  const applies = (s: (typeof statements)[number]) => {
    const resources = 'Resource' in s ? ([] as string[]).concat(s.Resource as string | string[]) : [];
    const actions = 'Action' in s ? ([] as string[]).concat(s.Action as string | string[]) : [];
    return (
      actions.some((a) => a === 'execute-api:Invoke' || a === '*' || a === 'execute-api:*') &&
      resources.some(matches)
    );
  };
  if (statements.some((s) => s.Effect === 'Deny' && applies(s))) return false;
  return statements.some((s) => s.Effect === 'Allow' && applies(s));
};
