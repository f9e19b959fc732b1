import type { PlanLimits } from '../../functions/shared/types/plans';

/** Sets per-company limit overrides straight in DynamoDB Local, as an operator would. */
export const setCompanyLimitOverrides = async (companyId: string, overrides: Partial<PlanLimits>) => {
  const { ddb, tableName } = await import('../../functions/shared/data/client');
  const { companyKey } = await import('../../functions/shared/data/companies');
  const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
  await ddb.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: companyKey(companyId),
      UpdateExpression: 'SET limitOverrides = :o',
      ExpressionAttributeValues: { ':o': overrides },
    }),
  );
};
