import { Duration, RemovalPolicy, SecretValue } from 'aws-cdk-lib';
import { ServicePrincipal, User } from 'aws-cdk-lib/aws-iam';
import { CfnRotationSchedule, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { KEY_RETIREMENT_SECONDS } from '../../functions/shared/aws/download-signer-keys';
import type { ObjectPrefix } from '../../functions/shared/types/object-prefixes';
import { type DataResources, WORKER_ACCESS } from '../access';
import { grantObjects } from '../grants/object-prefixes';
import { AppFunction } from './app-function';

/**
 * Days between rotations. More than `KEY_RETIREMENT_SECONDS` (8 days), so each scheduled rotation finds the
 * key before the current one deletable and IAM's limit of two keys per user never blocks it.
 */
export const SIGNER_ROTATION_DAYS = 14;

export interface DownloadSignerProps {
  /** The platform's data: the bucket it signs for, and what every function's environment names. */
  data: Pick<DataResources, 'table' | 'bucket' | 'jwtKeys' | 'jwtPublicKeys'>;
  /** The object prefixes the signer may read: those of stored objects, which download URLs name. */
  objectPrefixes: readonly ObjectPrefix[];
}

/**
 * Long-lived signing credentials for download URLs that must stay valid for up to 7 days. A presigned URL is
 * only valid while the credentials that signed it are: a Lambda role's session credentials expire within
 * hours, so they cannot sign a 7-day URL. This construct creates a dedicated IAM user whose only permission is
 * `s3:GetObject` on the stored-object prefixes of the platform bucket (`companies/<any>/<prefix>`), and a Secrets Manager secret with its access keys
 * (`{ keys: [...] }`, `functions/shared/aws/download-signer-keys.ts`) that the storage group reads.
 *
 * Secrets Manager rotates the secret every `SIGNER_ROTATION_DAYS` days, and once right after it is created,
 * with the rotation function `functions/workers/download-signer-rotation`: it creates a new key (which signs
 * every new URL), keeps the previous one until every URL it signed has expired (`KEY_RETIREMENT_SECONDS`), and
 * deletes it at the next rotation. No key is ever issued by CloudFormation or kept in a template.
 */
export class DownloadSigner extends Construct {
  readonly user: User;
  readonly secret: Secret;
  readonly rotation: AppFunction;

  constructor(scope: Construct, id: string, props: DownloadSignerProps) {
    super(scope, id);
    const { bucket } = props.data;
    this.user = new User(this, 'User');
    grantObjects(
      this.user,
      bucket,
      { 's3:GetObject': props.objectPrefixes },
      'The signer reads stored objects only: which object a URL names is decided by the storage route ' +
        'after it checked the caller owns the reference. GetObject is its only action.',
    );
    this.secret = new Secret(this, 'Secret', {
      description: 'Public API v1: access keys {keys: [...]} that sign 7-day download URLs (rotated)',
      // No key yet: the first rotation, right after deployment, creates it.
      secretStringValue: SecretValue.unsafePlainText(JSON.stringify({ keys: [] })),
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.rotation = new AppFunction(this, 'Rotation', {
      entry: 'functions/workers/download-signer-rotation/index.ts',
      description: 'Public API v1, rotation of the download signer access keys',
      access: WORKER_ACCESS.downloadSignerRotation,
      data: { ...props.data, downloadSigner: this.secret, downloadSignerUser: this.user },
      timeout: Duration.seconds(30),
    });
    this.rotation.addPermission('InvokedBySecretsManager', {
      principal: new ServicePrincipal('secretsmanager.amazonaws.com'),
      sourceArn: this.secret.secretArn,
    });
    const schedule = new CfnRotationSchedule(this, 'RotationSchedule', {
      secretId: this.secret.secretArn,
      rotationLambdaArn: this.rotation.functionArn,
      rotationRules: { scheduleExpression: `rate(${SIGNER_ROTATION_DAYS} days)` },
      rotateImmediatelyOnUpdate: true,
    });
    const permission = this.rotation.permissionsNode.findChild('InvokedBySecretsManager');
    schedule.node.addDependency(permission);
    if (SIGNER_ROTATION_DAYS * 86_400 <= KEY_RETIREMENT_SECONDS) {
      throw new Error('the signer must rotate less often than a retired key is kept');
    }
  }
}
