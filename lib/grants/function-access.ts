import { ArnFormat, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { type IRole, type IUser, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { TABLE_SHAPE } from '../../functions/shared/data/table';
import { type QueueName, queueUrlVariable } from '../../functions/shared/types/queues';
import { type StateMachineName, stateMachineArnVariable } from '../../functions/shared/types/state-machines';
import { nagReference } from '../nag';
import { grantObjects, type ObjectGrants } from './object-prefixes';
import { INDEX_PARTITIONS, type IndexPartition, TABLE_PARTITIONS, type TablePartition } from './partitions';

export type { ObjectGrants } from './object-prefixes';

/** The DynamoDB item actions a function may hold (a transaction needs the action of each of its items). */
export type ItemAction =
  | 'GetItem'
  | 'BatchGetItem'
  | 'Query'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'BatchWriteItem'
  | 'ConditionCheckItem';

export type ExecutionAction = 'StartExecution' | 'StopExecution' | 'DescribeExecution';
export type QueueAction = 'SendMessage' | 'ChangeMessageVisibility';
export type SecretName = 'jwtKeys' | 'jwtPublicKeys' | 'cursorKey' | 'downloadSigner';
/** What a function does with the key of workflow secrets: wraps new data keys, or unwraps stored ones. */
export type WorkflowSecretsKeyAction = 'GenerateDataKey' | 'Decrypt';

/**
 * Everything one function may do, declared as data (`lib/access.ts` holds one per function):
 *
 * - `table`: item actions, each on the table partitions it touches (a `dynamodb:LeadingKeys` condition).
 * - `gsi1`: `Query` on `gsi1`, on the index partitions it touches.
 * - `work`: `Query` on the keys-only `work` index (sparse partitions of unfinished work, and webhook delivery
 *   logs), on the index
 *   partitions it touches, and on the same partitions of `gsi1`, where items marked before the `work` index
 *   still are (`docs/decisions/0040-keys-only-work-index.md`); the items themselves are a `BatchGetItem` of
 *   `table`.
 * - `sortIndexes`: `Query` on `gsi2` and `gsi3` (the further sort indexes of Dynadata types), on the index
 *   partitions it touches.
 * - `objects`: object actions, each on the object prefixes it touches (`lib/grants/object-prefixes.ts`:
 *   `companies/<any company>/<prefix>`; `HeadObject` is `s3:GetObject`), never the whole bucket.
 * - `secrets`: `secretsmanager:GetSecretValue` on these secrets (their ARNs reach the environment).
 * - `workflowSecretsKey`: KMS actions on the key of workflow secrets, and nothing else of KMS.
 * - `stateMachines`: execution actions per machine (`StartExecution` on the machine, the others on its
 *   executions); each machine's ARN reaches the environment (`<NAME>_STATE_MACHINE_ARN`).
 * - `queues`: queue actions per queue, on that queue; each queue's URL reaches the environment
 *   (`<NAME>_QUEUE_URL`). The queue's consumer gets its receive actions from its event source.
 * - `unscoped`: actions IAM cannot scope to a resource (their resource is `*`), each with why.
 * - `failureQueue`: its asynchronous invocations that fail are sent to its failure queue (an on-failure
 *   destination, `lib/grants/failure-queue.ts`): Lambda sends them with the function's role, which holds
 *   `sqs:SendMessage` on that queue and nothing else of it; its code never calls it.
 * - `rotatesDownloadSigner`: the three access-key actions on the signer's user, and the rotation's four
 *   actions on the signer's secret (both names reach the environment).
 * - `neverCalls`: IAM actions the function's bundle can reach but the function never makes, each with why
 *   (shared code such as the router's idempotency store). `test/infra/bundle-grants.test.ts` derives every
 *   function's AWS calls from its bundle and fails on a grant beyond them and on a call neither granted nor
 *   listed here.
 */
export interface FunctionAccess {
  table?: Partial<Record<ItemAction, readonly TablePartition[]>>;
  gsi1?: readonly IndexPartition[];
  work?: readonly IndexPartition[];
  sortIndexes?: readonly IndexPartition[];
  objects?: ObjectGrants;
  secrets?: readonly SecretName[];
  /** `kms:<action>` on the key of workflow secrets (its ARN reaches the environment). */
  workflowSecretsKey?: readonly WorkflowSecretsKeyAction[];
  stateMachines?: Partial<Record<StateMachineName, readonly ExecutionAction[]>>;
  queues?: Partial<Record<QueueName, readonly QueueAction[]>>;
  unscoped?: readonly { actions: readonly string[]; reason: string }[];
  /** Failed asynchronous invocations go to a failure queue (`sendFailuresTo`), which the role may send to. */
  failureQueue?: true;
  /** Rotates the download signer: its user's access keys and the versions of its secret, nothing else. */
  rotatesDownloadSigner?: true;
  neverCalls?: Readonly<Record<string, string>>;
}

export interface DataResources {
  table: ITable;
  bucket: IBucket;
  /** The JWT signing key set (`{ keys: [...] }`, private keys), written by `admin jwt keys rotate`. */
  jwtKeys: ISecret;
  /** Its public verification keys (`{ keys: [{ kid, publicJwk, createdAt }] }`), written by the same rotation. */
  jwtPublicKeys: ISecret;
  /** The jobs stack's state machines (absent for the functions of the jobs stack itself). */
  stateMachines?: Partial<Record<StateMachineName, StateMachine>>;
  /** The jobs stack's queues (for the functions that send to them). */
  queues?: Partial<Record<QueueName, IQueue>>;
  /** The download signer's access keys (7-day download URLs). */
  downloadSigner?: ISecret;
  /** The list-cursor HMAC key (generated by the data stack). */
  cursorKey?: ISecret;
  /** The KMS key that wraps the data keys of workflow secrets. */
  workflowSecretsKey?: IKey;
  /** The IAM user whose access keys sign download URLs (for its rotation function only). */
  downloadSignerUser?: IUser;
}

const SECRET_VARIABLES: Record<SecretName, string> = {
  jwtKeys: 'JWT_KEYS_SECRET_ARN',
  jwtPublicKeys: 'JWT_PUBLIC_KEYS_SECRET_ARN',
  cursorKey: 'DYNADATA_CURSOR_SECRET_ARN',
  downloadSigner: 'DOWNLOAD_SIGNER_SECRET_ARN',
};

const secretOf = (name: SecretName, data: DataResources): ISecret => {
  const secret = data[name];
  if (!secret) throw new Error(`the ${name} secret is not available here`);
  return secret;
};

const workflowSecretsKeyOf = (data: DataResources): IKey => {
  if (!data.workflowSecretsKey) throw new Error('the key of workflow secrets is not available here');
  return data.workflowSecretsKey;
};

const machineOf = (name: StateMachineName, data: DataResources): StateMachine => {
  const machine = data.stateMachines?.[name];
  if (!machine) throw new Error(`the ${name} state machine is not available here`);
  return machine;
};

const queueOf = (name: QueueName, data: DataResources): IQueue => {
  const queue = data.queues?.[name];
  if (!queue) throw new Error(`the ${name} queue is not available here`);
  return queue;
};

/**
 * Table statements: one per distinct set of partitions, with every action that touches exactly that set, and
 * a `ForAllValues:StringLike` condition on `dynamodb:LeadingKeys` (every key of a batch must match).
 */
const tableStatements = (access: FunctionAccess, table: ITable): PolicyStatement[] => {
  const byPartitions = new Map<string, { partitions: readonly string[]; actions: string[] }>();
  for (const [action, partitions] of Object.entries(access.table ?? {})) {
    const patterns = [...new Set((partitions ?? []).map((p) => TABLE_PARTITIONS[p]))].sort();
    const id = patterns.join(' ');
    const entry = byPartitions.get(id) ?? { partitions: patterns, actions: [] };
    entry.actions.push(`dynamodb:${action}`);
    byPartitions.set(id, entry);
  }
  const statements = [...byPartitions.values()].map(
    ({ partitions, actions }) =>
      new PolicyStatement({
        actions: actions.sort(),
        resources: [table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': partitions } },
      }),
  );
  const indexQueries = [
    [access.gsi1, [TABLE_SHAPE.gsi1]],
    [access.work, [TABLE_SHAPE.work, TABLE_SHAPE.gsi1]],
    [access.sortIndexes, [TABLE_SHAPE.gsi2, TABLE_SHAPE.gsi3]],
  ] as const;
  for (const [partitions, indexes] of indexQueries) {
    if (!partitions?.length) continue;
    statements.push(
      new PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: indexes.map((index) => `${table.tableArn}/index/${index.indexName}`),
        conditions: {
          'ForAllValues:StringLike': {
            'dynamodb:LeadingKeys': [...new Set(partitions.map((p) => INDEX_PARTITIONS[p]))].sort(),
          },
        },
      }),
    );
  }
  return statements;
};

/** Adds the statements `access` declares to `role`, each on exact resources (the few wildcards acknowledged). */
export const grantDataAccess = (role: IRole, access: FunctionAccess, data: DataResources): void => {
  for (const statement of tableStatements(access, data.table)) role.addToPrincipalPolicy(statement);
  for (const name of access.secrets ?? []) {
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['secretsmanager:GetSecretValue'],
        resources: [secretOf(name, data).secretArn],
      }),
    );
  }
  if (access.workflowSecretsKey?.length) {
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: access.workflowSecretsKey.map((a) => `kms:${a}`),
        resources: [workflowSecretsKeyOf(data).keyArn],
      }),
    );
  }
  for (const [name, actions] of Object.entries(access.stateMachines ?? {})) {
    grantExecutions(role, machineOf(name as StateMachineName, data), actions ?? []);
  }
  for (const [name, actions] of Object.entries(access.queues ?? {})) {
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: (actions ?? []).map((a) => `sqs:${a}`),
        resources: [queueOf(name as QueueName, data).queueArn],
      }),
    );
  }
  for (const { actions, reason } of access.unscoped ?? []) {
    role.addToPrincipalPolicy(new PolicyStatement({ actions: [...actions], resources: ['*'] }));
    Validations.of(role).acknowledge({ id: 'AwsSolutions-IAM5[Resource::*]', reason });
  }
  if (access.rotatesDownloadSigner) grantSignerRotation(role, data);
  if (access.objects) {
    grantObjects(
      role,
      data.bucket,
      access.objects,
      'The function builds or validates every key under companies/<companyId>/ of the caller (authorizer ' +
        'context or job record), then under the prefix of the kind of object it reads or writes.',
    );
  }
};

/** Exactly what a Secrets Manager rotation of the signer's key set calls (`functions/workers/download-signer-rotation`). */
export const SIGNER_ROTATION_ACTIONS = {
  iam: ['iam:CreateAccessKey', 'iam:DeleteAccessKey', 'iam:ListAccessKeys'],
  secret: [
    'secretsmanager:DescribeSecret',
    'secretsmanager:GetSecretValue',
    'secretsmanager:PutSecretValue',
    'secretsmanager:UpdateSecretVersionStage',
  ],
} as const;

const signerUserOf = (data: DataResources): IUser => {
  if (!data.downloadSignerUser) throw new Error('the download signer user is not available here');
  return data.downloadSignerUser;
};

const grantSignerRotation = (role: IRole, data: DataResources): void => {
  role.addToPrincipalPolicy(
    new PolicyStatement({
      actions: [...SIGNER_ROTATION_ACTIONS.iam],
      resources: [signerUserOf(data).userArn],
    }),
  );
  role.addToPrincipalPolicy(
    new PolicyStatement({
      actions: [...SIGNER_ROTATION_ACTIONS.secret],
      resources: [secretOf('downloadSigner', data).secretArn],
    }),
  );
};

/**
 * `StartExecution` names the machine; `StopExecution` and `DescribeExecution` name its executions
 * (`execution:<machine name>:<execution name>`), so that statement wildcards only the execution name. The
 * machine's name is imported explicitly so the acknowledgement can name that finding.
 */
const grantExecutions = (role: IRole, machine: StateMachine, actions: readonly ExecutionAction[]): void => {
  if (actions.includes('StartExecution')) {
    role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['states:StartExecution'], resources: [machine.stateMachineArn] }),
    );
  }
  const onExecutions = actions.filter((a) => a !== 'StartExecution').map((a) => `states:${a}`);
  if (onExecutions.length === 0) return;
  const consumer = Stack.of(role);
  const producer = Stack.of(machine);
  const machineName =
    producer === consumer ? machine.stateMachineName : producer.exportValue(machine.stateMachineName);
  const executions = consumer.formatArn({
    service: 'states',
    resource: 'execution',
    resourceName: `${machineName}:*`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
  role.addToPrincipalPolicy(new PolicyStatement({ actions: onExecutions, resources: [executions] }));
  Validations.of(role).acknowledge({
    id: `AwsSolutions-IAM5[Resource::${nagReference(role, executions)}]`,
    reason:
      `${onExecutions.join(', ')} on the execution of one job; execution names are job ids chosen at run ` +
      'time, so the resource is every execution of exactly this state machine.',
  });
};

/** The environment of a function: where the data lives, and the ARNs of the secrets and machines it uses. */
export const dataEnvironment = (access: FunctionAccess, data: DataResources): Record<string, string> => ({
  TABLE_NAME: data.table.tableName,
  BUCKET_NAME: data.bucket.bucketName,
  ...Object.fromEntries(
    (access.secrets ?? []).map((name) => [SECRET_VARIABLES[name], secretOf(name, data).secretArn]),
  ),
  ...(access.workflowSecretsKey?.length
    ? { WORKFLOW_SECRETS_KEY_ARN: workflowSecretsKeyOf(data).keyArn }
    : {}),
  ...(access.rotatesDownloadSigner
    ? {
        DOWNLOAD_SIGNER_SECRET_ARN: secretOf('downloadSigner', data).secretArn,
        DOWNLOAD_SIGNER_USER_NAME: signerUserOf(data).userName,
      }
    : {}),
  ...Object.fromEntries(
    Object.keys(access.stateMachines ?? {}).map((name) => [
      stateMachineArnVariable(name as StateMachineName),
      machineOf(name as StateMachineName, data).stateMachineArn,
    ]),
  ),
  ...Object.fromEntries(
    Object.keys(access.queues ?? {}).map((name) => [
      queueUrlVariable(name),
      queueOf(name as QueueName, data).queueUrl,
    ]),
  ),
});
