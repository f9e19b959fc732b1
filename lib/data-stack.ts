import {
  CfnOutput,
  Duration,
  RemovalPolicy,
  SecretValue,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import { Key } from 'aws-cdk-lib/aws-kms';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  HttpMethods,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { BUCKET_CORS_RULE } from '../functions/shared/aws/bucket-cors';
import { TABLE_INDEXES, TABLE_SHAPE } from '../functions/shared/data/table';
import { STORED_OBJECT_PREFIXES } from '../functions/shared/types/object-prefixes';
import { DownloadSigner } from './constructs/download-signer';

/**
 * The stateful resources: the single table, the platform bucket and the JWT signing key set. All are
 * RETAINed, so deleting the stacks keeps the data; the table also has deletion protection.
 *
 * Encryption: AWS managed keys (the table's `aws/dynamodb` key, SSE-S3 for the buckets). Every reader and
 * writer is a role of this account that IAM already limits to exact actions and resources, so a customer
 * managed key would add a second policy to keep in step with every grant (and KMS calls on every S3 and
 * signed-URL request) without narrowing who can read. SSE-S3 is also what S3 server access logging requires
 * of its target bucket. A customer managed key can be introduced later without changing the data model.
 */
export class DataStack extends Stack {
  readonly table: Table;
  readonly bucket: Bucket;
  readonly jwtKeys: Secret;
  /** The public verification keys of `jwtKeys`: all the authorizer reads. */
  readonly jwtPublicKeys: Secret;
  /** The HMAC key of Dynadata and contacts list cursors (generated, never leaves Secrets Manager). */
  readonly cursorKey: Secret;
  /**
   * Wraps the data keys of workflow secrets (envelope encryption, `functions/shared/aws/kms.ts`): the values
   * never leave the table in the clear, and only the functions that store or use them may call it.
   */
  readonly workflowSecretsKey: Key;
  readonly downloadSigner: DownloadSigner;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    // Grant S3 log delivery through a bucket policy instead of the legacy LogDeliveryWrite ACL, so the log
    // bucket can keep ACLs disabled (BucketOwnerEnforced).
    this.node.setContext('@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy', true);

    this.table = new Table(this, 'Table', {
      partitionKey: { name: TABLE_SHAPE.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_SHAPE.sortKey, type: AttributeType.STRING },
      timeToLiveAttribute: TABLE_SHAPE.timeToLiveAttribute,
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
      // Feeds the event dispatcher: new events, and usage months (their thresholds), old and new.
      stream: StreamViewType.NEW_AND_OLD_IMAGES,
    });
    // gsi2 and gsi3 are the further sort indexes of Dynadata types (docs/decisions/0031-dynadata-sort-indexes.md);
    // `work` holds the keys of unfinished work (docs/decisions/0040-keys-only-work-index.md). CloudFormation
    // creates one index per table update: an existing table gains them one deploy at a time (`-c tableIndexes=3`,
    // then a deploy without it; docs/operate.md#deploy).
    const indexes = Number(this.node.tryGetContext('tableIndexes') ?? TABLE_INDEXES.length);
    for (const index of TABLE_INDEXES.slice(0, Math.max(1, indexes))) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: index.projection === 'ALL' ? ProjectionType.ALL : ProjectionType.KEYS_ONLY,
      });
    }

    const accessLogs = new Bucket(this, 'AccessLogsBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ expiration: Duration.days(365) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'platform-bucket/',
      lifecycleRules: [
        {
          noncurrentVersionExpiration: Duration.days(30),
          abortIncompleteMultipartUploadAfter: Duration.days(7),
        },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
      // Browsers upload to and download from presigned URLs (functions/shared/aws/bucket-cors.ts).
      cors: [
        {
          allowedMethods: BUCKET_CORS_RULE.allowedMethods.map((m) => HttpMethods[m]),
          allowedOrigins: BUCKET_CORS_RULE.allowedOrigins,
          allowedHeaders: BUCKET_CORS_RULE.allowedHeaders,
          exposedHeaders: BUCKET_CORS_RULE.exposedHeaders,
          maxAge: BUCKET_CORS_RULE.maxAgeSeconds,
        },
      ],
    });
    // The stack generates no key material: both secrets start as empty key sets, and
    // `npm run admin -- jwt keys rotate --jwt-keys-secret <arn> --jwt-public-keys-secret <arn>` writes the
    // first key (the public set first). Until then JWTs cannot be verified (API keys work). The signing set
    // (private keys) is read only by the functions that mint tokens; the authorizer reads the public set.
    this.jwtKeys = new Secret(this, 'JwtKeys', {
      description: 'Public API v1: JWT signing key set ({ keys: [...] }), written by admin jwt keys rotate',
      secretStringValue: SecretValue.unsafePlainText(JSON.stringify({ keys: [] })),
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.jwtPublicKeys = new Secret(this, 'JwtPublicKeys', {
      description:
        'Public API v1: JWT verification keys ({ keys: [{ kid, publicJwk, createdAt }] }), written by admin jwt keys rotate',
      secretStringValue: SecretValue.unsafePlainText(JSON.stringify({ keys: [] })),
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const keys of [this.jwtKeys, this.jwtPublicKeys]) {
      Validations.of(keys).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          'Rotation must keep the previous key verifying the tokens it signed and publish a key before it ' +
          'signs, so it is done by the operator CLI (admin jwt keys rotate: add a key, drop the one before ' +
          'it, public set first), not by a rotation Lambda.',
      });
    }

    // 7-day download URLs are signed with a dedicated read-only IAM user's rotated keys (see the construct).
    this.downloadSigner = new DownloadSigner(this, 'DownloadSigner', {
      data: {
        table: this.table,
        bucket: this.bucket,
        jwtKeys: this.jwtKeys,
        jwtPublicKeys: this.jwtPublicKeys,
      },
      objectPrefixes: STORED_OBJECT_PREFIXES,
    });

    // List cursors are HMAC-bound to the company and the query with this generated key; replacing its value
    // only invalidates the cursors of lists in progress (clients start again from the first page).
    this.cursorKey = new Secret(this, 'DynadataCursorKey', {
      description: 'Public API v1: HMAC key of Dynadata and contacts list cursors',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.cursorKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The key only authenticates short-lived list cursors; replacing it (by hand, when needed) ends the ' +
        'lists in progress, which a scheduled rotation would do for no gain.',
    });

    this.workflowSecretsKey = new Key(this, 'WorkflowSecretsKey', {
      description: 'Public API v1: wraps the data keys of workflow secrets',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    new CfnOutput(this, 'TableName', {
      value: this.table.tableName,
      description: 'The single DynamoDB table',
    });
    new CfnOutput(this, 'BucketName', { value: this.bucket.bucketName, description: 'The platform bucket' });
    new CfnOutput(this, 'JwtKeysSecretArn', {
      value: this.jwtKeys.secretArn,
      description: 'JWT signing key set secret (admin jwt keys rotate --jwt-keys-secret)',
    });
    new CfnOutput(this, 'JwtPublicKeysSecretArn', {
      value: this.jwtPublicKeys.secretArn,
      description: 'JWT verification keys secret (admin jwt keys rotate --jwt-public-keys-secret)',
    });
  }
}
