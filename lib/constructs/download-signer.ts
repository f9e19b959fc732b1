import { RemovalPolicy, SecretValue, Validations } from 'aws-cdk-lib';
import { AccessKey, PolicyStatement, User } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { nagReference } from '../nag';

export interface DownloadSignerProps {
  bucket: IBucket;
  /** Object prefix the signer may read (`companies/`). */
  objectPrefix: string;
  /** Bump to issue a new access key (the old one, and every URL it signed, stops working on deploy). */
  keySerial?: number;
}

/**
 * Long-lived signing credentials for download URLs that must stay valid for up to 7 days. A presigned URL
 * is only valid while the credentials that signed it are: a Lambda role's session credentials expire within
 * hours, so they cannot sign a 7-day URL. This construct creates a dedicated IAM user whose only permission
 * is `s3:GetObject` on the tenant prefix of the platform bucket, an access key for it, and a Secrets Manager
 * secret `{accessKeyId, secretAccessKey}` that the storage function reads once per cold start.
 */
export class DownloadSigner extends Construct {
  readonly user: User;
  readonly secret: Secret;

  constructor(scope: Construct, id: string, props: DownloadSignerProps) {
    super(scope, id);
    this.user = new User(this, 'User');
    const objects = props.bucket.arnForObjects(`${props.objectPrefix}*`);
    this.user.addToPrincipalPolicy(new PolicyStatement({ actions: ['s3:GetObject'], resources: [objects] }));
    const key = new AccessKey(this, 'AccessKey', { user: this.user, serial: props.keySerial ?? 1 });
    this.secret = new Secret(this, 'Secret', {
      description: 'Public API v1: access key {accessKeyId, secretAccessKey} that signs 7-day download URLs',
      secretObjectValue: {
        accessKeyId: SecretValue.unsafePlainText(key.accessKeyId),
        secretAccessKey: key.secretAccessKey,
      },
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(this.user).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagReference(this.user, props.bucket.bucketArn)}/${props.objectPrefix}*]`,
      reason:
        'The signer reads any object of the tenant prefix companies/: which object a URL names is decided by ' +
        'the storage route after it checked the caller owns the reference. GetObject is its only action.',
    });
    Validations.of(this.secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The secret holds an IAM access key that CloudFormation issues; it is rotated by bumping keySerial ' +
        '(a deploy replaces the key and the secret value together), which also ends the URLs the old key signed.',
    });
  }
}
