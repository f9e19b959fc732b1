import { localEnvironmentFromStackFile } from '../local/stack-file';
import { queueUrlVariable } from '../shared/types/queues';

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * Where the operator CLI acts: on AWS when `--table` (and `--bucket`, `--region`) are given, otherwise on the
 * local stack described by `<DATA_DIR>/stack.json`. Sets the environment the runtime modules read; must run
 * before they are imported.
 */
export const selectTarget = (options: {
  table?: string;
  bucket?: string;
  region?: string;
  jwtKeysSecret?: string;
  /** The public verification keys' secret: `jwt keys rotate` writes it before the signing keys. */
  jwtPublicKeysSecret?: string;
  /** Workflow schedules on AWS (the jobs stack's `WorkflowSchedules` outputs): all three or none. */
  scheduleGroup?: string | undefined;
  schedulerRoleArn?: string | undefined;
  scheduleTargetArn?: string | undefined;
  /** The `webhook-delivery` queue on AWS (the jobs stack's `WebhookDeliveryQueueUrl`: `webhooks resend-lanes`). */
  webhookQueueUrl?: string | undefined;
  dataDir: string;
}) => {
  if (options.table) {
    Object.assign(process.env, {
      TABLE_NAME: options.table,
      BUCKET_NAME: options.bucket ?? '-',
      ...(options.region ? { AWS_REGION: options.region } : {}),
      ...(options.jwtKeysSecret ? { JWT_KEYS_SECRET_ARN: options.jwtKeysSecret } : {}),
      ...(options.jwtPublicKeysSecret ? { JWT_PUBLIC_KEYS_SECRET_ARN: options.jwtPublicKeysSecret } : {}),
      ...(options.scheduleGroup ? { WORKFLOW_SCHEDULE_GROUP: options.scheduleGroup } : {}),
      ...(options.schedulerRoleArn ? { WORKFLOW_SCHEDULER_ROLE_ARN: options.schedulerRoleArn } : {}),
      ...(options.scheduleTargetArn ? { WORKFLOW_SCHEDULE_TARGET_ARN: options.scheduleTargetArn } : {}),
      ...(options.webhookQueueUrl ? { [queueUrlVariable('webhook-delivery')]: options.webhookQueueUrl } : {}),
    });
    return `aws table ${options.table}`;
  }
  const local = localEnvironmentFromStackFile(options.dataDir);
  if (!local) {
    throw new UsageError(
      `No local stack found (${options.dataDir}/stack.json is missing). Start it with \`npm start\`, ` +
        'or pass --table, --bucket and --region to act on AWS.',
    );
  }
  Object.assign(process.env, local);
  return `local stack (${options.dataDir})`;
};
