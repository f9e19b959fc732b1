import type { PlanLimits } from '../../functions/shared/types/plans';

/**
 * The request rate of test tenants: integration tests send requests at machine speed, and a test that fires
 * a corpus at once is not about the request rate, which `request-rates.test.ts` tests on its own.
 */
export const UNTHROTTLED: Partial<PlanLimits> = { requestsPerSecond: 100_000, burst: 100_000 };

/** Sets per-company limit overrides straight in DynamoDB Local, as an operator would (unthrottled unless set). */
export const setCompanyLimitOverrides = async (companyId: string, overrides: Partial<PlanLimits>) => {
  const { ddb, tableName } = await import('../../functions/shared/data/client');
  const { companyKey } = await import('../../functions/shared/data/companies');
  const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
  await ddb.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: companyKey(companyId),
      UpdateExpression: 'SET limitOverrides = :o',
      ExpressionAttributeValues: { ':o': { ...UNTHROTTLED, ...overrides } },
    }),
  );
};
