import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as zm from '../../zod-mini';
import { ddb, tableName } from '../client';
import { defineEntity } from '../entity';
import { partitions, sortKeys } from '../keys';

/**
 * Secrets an async run's steps produced (a token `actions/security/auth/jwt/generate` minted), one item per
 * step in the run's partition (`SECRET#<stepId>`), sealed like workflow secrets (`domain/workflows/vault.ts`):
 * later turns of the run, in other invocations, open them again so later steps can use them, and no read of
 * the API ever answers them. Each expires with its token (`ttl`).
 */
const RunSecret = /* @__PURE__ */ defineEntity({
  name: 'workflow_run_secret',
  key: (companyId: string, runId: string, stepId: string) => ({
    pk: partitions.workflowRuns(companyId, runId),
    sk: sortKeys.workflowRunSecret(stepId),
  }),
  get schema() {
    return zm.object({
      stepId: zm.string(),
      /** The output field that holds the secret. */
      field: zm.string(),
      sealed: zm.string(),
      wrappedKey: zm.string(),
      ttl: zm.number(),
    });
  },
});

export type StoredRunSecret = zm.output<typeof RunSecret.schema>;

/**
 * Keeps a step's secret (once: a repeat of the same step keeps the first). An update that creates the item,
 * as the engine writes every item of a run's partition: what runs steps creates no run (no `PutItem` there).
 */
export const putRunSecret = async (
  companyId: string,
  runId: string,
  secret: StoredRunSecret,
): Promise<void> => {
  await ddb.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: RunSecret.key(companyId, runId, secret.stepId),
      ...RunSecret.update(
        { set: { ...secret, entity: RunSecret.name } },
        { expression: 'attribute_not_exists(pk)' },
      ),
    }),
  );
};

/** The secrets the run's steps kept. */
export const listRunSecrets = async (companyId: string, runId: string): Promise<StoredRunSecret[]> => {
  const { Items } = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :secret)',
      ExpressionAttributeValues: {
        ':pk': partitions.workflowRuns(companyId, runId),
        ':secret': sortKeys.workflowRunSecret(''),
      },
      ConsistentRead: true,
    }),
  );
  return (Items ?? []).map((item) => RunSecret.decode(item));
};
