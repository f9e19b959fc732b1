import {
  STATE_MACHINE_NAMES,
  type StateMachineName,
  stateMachineArnVariable,
} from './aws/state-machine-names';

/**
 * The only place that reads `process.env`. Each value is read once, on first use, and a missing required
 * variable fails fast with its name.
 */
export interface Env {
  /** DynamoDB single table. */
  tableName: string;
  /** The platform bucket shared by all tenants (per-company prefixes). */
  bucketName: string;
  region: string;
  /** Endpoint overrides: set only by the local stack (DynamoDB Local, s3rver). */
  dynamodbEndpoint: string | undefined;
  s3Endpoint: string | undefined;
  /** Self-hosted switch that restores writes to the built-in `log_entries` type. Never set on the hosted platform. */
  allowLogEntryWrites: boolean;
  /** How long the authorizer reuses a decision; bounds how late a revocation takes effect (1 to 60 s). */
  authorizerCacheTtlSeconds: number;
  /** JWT signing key set (JSON file); the local stack generates it under DATA_DIR. */
  jwtKeysFile: string | undefined;
  /** On AWS: the Secrets Manager secret holding the JWT key set. */
  jwtKeysSecretArn: string | undefined;
  /** Endpoint override of Step Functions: set only by the local stack (its emulator). */
  stepFunctionsEndpoint: string | undefined;
  /** State machine ARNs a function may start, by machine name; only those granted are set. */
  stateMachineArns: Partial<Record<StateMachineName, string>>;
  /** On AWS: the Secrets Manager secret holding the long-lived download-signing access key (storage). */
  downloadSignerSecretArn: string | undefined;
  /** Dynadata and messaging: key of the HMAC binding list cursors to the company and the query. */
  cursorSecret: string | undefined;
  /** Dynadata and messaging: the local stack may deliver webhooks to loopback addresses (never on AWS). */
  allowLoopbackWebhooks: boolean;
}

const required = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`Missing required environment variable ${name}`);
  return value;
};

const optional = (name: string): string | undefined => {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
};

const boundedInteger = (name: string, fallback: number, min: number, max: number): number => {
  const raw = optional(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`Environment variable ${name} must be an integer from ${min} to ${max}, got ${raw}`);
  }
  return value;
};

let cached: Env | undefined;

export const env = (): Env => {
  cached ??= Object.freeze({
    tableName: required('TABLE_NAME'),
    bucketName: required('BUCKET_NAME'),
    region: optional('AWS_REGION') ?? optional('AWS_DEFAULT_REGION') ?? 'us-east-1',
    dynamodbEndpoint: optional('DYNAMODB_ENDPOINT'),
    s3Endpoint: optional('S3_ENDPOINT'),
    allowLogEntryWrites: optional('V1_ALLOW_LOG_ENTRY_WRITES') === 'true',
    authorizerCacheTtlSeconds: boundedInteger('AUTHORIZER_CACHE_TTL_SECONDS', 30, 1, 60),
    jwtKeysFile: optional('JWT_KEYS_FILE'),
    jwtKeysSecretArn: optional('JWT_KEYS_SECRET_ARN'),
    stepFunctionsEndpoint: optional('SFN_ENDPOINT'),
    stateMachineArns: Object.freeze(
      Object.fromEntries(STATE_MACHINE_NAMES.map((m) => [m, optional(stateMachineArnVariable(m))])),
    ),
    downloadSignerSecretArn: optional('DOWNLOAD_SIGNER_SECRET_ARN'),
    cursorSecret: optional('DYNADATA_CURSOR_SECRET'),
    allowLoopbackWebhooks: optional('ALLOW_LOOPBACK_WEBHOOKS') === 'true',
  });
  return cached;
};
