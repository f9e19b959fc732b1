import { ArnFormat, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { TABLE_SHAPE } from '../functions/shared/data/table';
import type { RouteGroup } from '../functions/shared/routes/route-table';
import { type StateMachineName, stateMachineArnVariable } from '../functions/shared/types/state-machines';
import { nagReference } from './nag';

/**
 * What each function may do with the table and the bucket: the one place to change a grant.
 *
 * - `lookup`: `GetItem` on the table only (the authorizer reads API-key hashes, companies and plans by key).
 * - `read`: point reads and queries on the table and on `gsi1`.
 * - `readWrite`: `read` plus item writes (transactions need the same item actions).
 * - `meter`: adds `UpdateItem` on usage-meter partitions only: every authenticated request adds 1 to the
 *   company's `api_requests` meter (`functions/shared/http/middleware.ts`), so read-only groups still write
 *   that one item. The IAM condition pins the partition key to `CO#<companyId>#USAGE` (`usageMonthKey`).
 *   `readWrite` already includes it.
 * - `bucket`: object read/write under `companies/` (every stored object lives under `companies/<companyId>/`).
 * - `signingKeys`: reads the JWT key set secret (only the authorizer verifies JWTs; the operator CLI writes it).
 * - `stateMachines`: may start executions of these machines and stop their executions (cancel), and gets
 *   each machine's ARN in its environment (`<NAME>_STATE_MACHINE_ARN`).
 * - `downloadSigning`: reads the download signer's access key secret (storage signs 7-day download URLs).
 * - `speechSynthesis`: `polly:SynthesizeSpeech` only (the speech group; no lexicons are used, and the action
 *   takes no other resource than lexicons, so its resource is `*`).
 * - `cursorKey`: reads the list-cursor HMAC key secret (Dynadata and contacts lists), its ARN in
 *   `DYNADATA_CURSOR_SECRET_ARN`.
 */
export type TableAccess = 'lookup' | 'read' | 'readWrite';

export interface FunctionAccess {
  table: TableAccess;
  meter: boolean;
  bucket: boolean;
  signingKeys?: boolean;
  stateMachines?: StateMachineName[];
  downloadSigning?: boolean;
  cursorKey?: boolean;
  speechSynthesis?: boolean;
}

export const AUTHORIZER_ACCESS: FunctionAccess = {
  table: 'lookup',
  meter: false,
  bucket: false,
  signingKeys: true,
};

/** The log shipper writes `log_entries` items and adds compute time to the usage meters. */
export const LOG_SHIPPER_ACCESS: FunctionAccess = { table: 'readWrite', meter: true, bucket: false };

/**
 * What a workflow step may do, in the workflows group (sync runs) and the step worker (async runs) alike: the
 * actions call the same domain functions as the routes (tokens, jobs, messages, speech, Dynadata lists).
 */
export const WORKFLOW_STEP_ACCESS: FunctionAccess = {
  table: 'readWrite',
  meter: true,
  bucket: true,
  signingKeys: true,
  cursorKey: true,
  speechSynthesis: true,
  stateMachines: ['transcode', 'transcription', 'message-delivery'],
};

export const GROUP_ACCESS: Record<RouteGroup, FunctionAccess> = {
  public: { table: 'read', meter: false, bucket: false },
  company: { table: 'read', meter: true, bucket: false },
  usage: { table: 'read', meter: true, bucket: false },
  contacts: {
    table: 'readWrite',
    meter: true,
    bucket: true,
    stateMachines: ['message-delivery'],
    cursorKey: true,
  },
  dynadata: {
    table: 'readWrite',
    meter: true,
    bucket: true,
    stateMachines: ['message-delivery'],
    cursorKey: true,
  },
  storage: { table: 'readWrite', meter: true, bucket: true, downloadSigning: true },
  transcriptions: { table: 'readWrite', meter: true, bucket: true, stateMachines: ['transcription'] },
  transcodes: { table: 'readWrite', meter: true, bucket: true, stateMachines: ['transcode'] },
  speech: { table: 'readWrite', meter: true, bucket: true, speechSynthesis: true },
  workflows: {
    ...WORKFLOW_STEP_ACCESS,
    stateMachines: [...(WORKFLOW_STEP_ACCESS.stateMachines ?? []), 'workflow-run'],
  },
  /**
   * The union of what its tools call: job and usage reads, Dynadata reads and item writes (`readWrite`, which
   * includes the meter), and the list-cursor key. No tool touches the bucket or starts an execution.
   */
  mcp: { table: 'readWrite', meter: true, bucket: false, cursorKey: true },
  events: { table: 'readWrite', meter: true, bucket: false },
};

const READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'];

export const TABLE_ACTIONS: Record<TableAccess, string[]> = {
  lookup: ['dynamodb:GetItem'],
  read: READ_ACTIONS,
  readWrite: [
    ...READ_ACTIONS,
    'dynamodb:ConditionCheckItem',
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:BatchWriteItem',
  ],
};

/** Partition keys of the usage meters (`usageMonthKey`, `usageTotalsKey`), as an IAM `StringLike` pattern. */
export const METER_PARTITION_PATTERN = 'CO#*#USAGE';

/** Every stored object lives under this prefix (`companies/<companyId>/...`). */
export const TENANT_OBJECT_PREFIX = 'companies/';

export const BUCKET_OBJECT_ACTIONS = [
  's3:GetObject',
  's3:PutObject',
  's3:DeleteObject',
  's3:AbortMultipartUpload',
];

export interface DataResources {
  table: ITable;
  bucket: IBucket;
  /** The JWT key set (`{ keys: [...] }`), written by `admin jwt keys rotate`. */
  jwtKeys: ISecret;
  /** The jobs stack's state machines (absent for the functions of the jobs stack itself). */
  stateMachines?: Partial<Record<StateMachineName, StateMachine>>;
  /** The download signer's access key `{accessKeyId, secretAccessKey}` (7-day download URLs). */
  downloadSigner?: ISecret;
  /** The list-cursor HMAC key (generated by the data stack). */
  cursorKey?: ISecret;
}

/**
 * Adds the statements `access` allows to `role`. Resources are exact ARNs (the table, `gsi1`), so only the
 * tenant object prefix is a wildcard; that one finding is acknowledged here, on the role that holds it.
 */
export const grantDataAccess = (role: IRole, access: FunctionAccess, data: DataResources): void => {
  const { table, bucket, jwtKeys } = data;
  for (const name of access.stateMachines ?? []) {
    const machine = data.stateMachines?.[name];
    if (machine) grantExecutions(role, machine);
  }
  const tableResources =
    access.table === 'lookup'
      ? [table.tableArn]
      : [table.tableArn, `${table.tableArn}/index/${TABLE_SHAPE.gsi1.indexName}`];
  role.addToPrincipalPolicy(
    new PolicyStatement({ actions: TABLE_ACTIONS[access.table], resources: tableResources }),
  );
  if (access.meter && access.table !== 'readWrite') {
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['dynamodb:UpdateItem'],
        resources: [table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [METER_PARTITION_PATTERN] } },
      }),
    );
  }
  if (access.signingKeys) jwtKeys.grantRead(role);
  if (access.downloadSigning && data.downloadSigner) data.downloadSigner.grantRead(role);
  if (access.speechSynthesis) {
    role.addToPrincipalPolicy(new PolicyStatement({ actions: ['polly:SynthesizeSpeech'], resources: ['*'] }));
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'polly:SynthesizeSpeech names only lexicons as resources and no lexicon is used, so "*" is its resource; ' +
        'xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions.',
    });
  }
  if (access.cursorKey && data.cursorKey) data.cursorKey.grantRead(role);
  if (access.bucket) {
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: BUCKET_OBJECT_ACTIONS,
        resources: [bucket.arnForObjects(`${TENANT_OBJECT_PREFIX}*`)],
      }),
    );
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [`${TENANT_OBJECT_PREFIX}*`] } },
      }),
    );
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagReference(role, bucket.bucketArn)}/${TENANT_OBJECT_PREFIX}*]`,
      reason:
        'Objects are keyed by tenant and id at run time; access is limited to the tenant prefix companies/, ' +
        'and each request builds keys under companies/<companyId>/ from the authorizer context.',
    });
  }
};

/**
 * Start executions of `machine`, and stop or describe its executions (cancel). Execution ARNs are
 * `execution:<machine name>:<execution name>`, so the statement names the machine and wildcards only the
 * execution name; the machine's name is imported explicitly so the acknowledgement can name that finding.
 */
const grantExecutions = (role: IRole, machine: StateMachine): void => {
  machine.grantStartExecution(role);
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
  role.addToPrincipalPolicy(
    new PolicyStatement({
      actions: ['states:StopExecution', 'states:DescribeExecution'],
      resources: [executions],
    }),
  );
  Validations.of(role).acknowledge({
    id: `AwsSolutions-IAM5[Resource::${nagReference(role, executions)}]`,
    reason:
      'Cancel stops the execution of one job; execution names are job ids chosen at run time, so the ' +
      'resource is every execution of exactly this state machine.',
  });
};

/** The environment of a function: where the data lives, and the key set secret if it may read it. */
export const dataEnvironment = (access: FunctionAccess, data: DataResources): Record<string, string> => ({
  TABLE_NAME: data.table.tableName,
  BUCKET_NAME: data.bucket.bucketName,
  ...(access.signingKeys ? { JWT_KEYS_SECRET_ARN: data.jwtKeys.secretArn } : {}),
  ...Object.fromEntries(
    (access.stateMachines ?? []).flatMap((name) => {
      const machine = data.stateMachines?.[name];
      return machine ? [[stateMachineArnVariable(name), machine.stateMachineArn]] : [];
    }),
  ),
  ...(access.downloadSigning && data.downloadSigner
    ? { DOWNLOAD_SIGNER_SECRET_ARN: data.downloadSigner.secretArn }
    : {}),
  ...(access.cursorKey && data.cursorKey ? { DYNADATA_CURSOR_SECRET_ARN: data.cursorKey.secretArn } : {}),
});
