import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { TABLE_INDEXES, TABLE_SHAPE } from '../../functions/shared/data/table';
import { DataStack } from '../../lib/data-stack';
import { resourcesOfType } from './rest-api';
import { logicalIdOf, testContext } from './synth';

// The data stack needs no bundling: it is synthesized on its own.
let stack: DataStack;
let template: Template;
beforeAll(() => {
  stack = new DataStack(new App({ context: testContext() }), 'Data');
  template = Template.fromStack(stack);
});

describe('table', () => {
  it('is the single table of TABLE_SHAPE: pk/sk strings, gsi1 to gsi3 projecting all attributes, work keys only, ttl', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: TABLE_SHAPE.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE_SHAPE.sortKey, KeyType: 'RANGE' },
      ],
      AttributeDefinitions: Match.arrayWith([
        { AttributeName: TABLE_SHAPE.partitionKey, AttributeType: 'S' },
        { AttributeName: TABLE_SHAPE.sortKey, AttributeType: 'S' },
        ...TABLE_INDEXES.flatMap((index) => [
          { AttributeName: index.partitionKey, AttributeType: 'S' },
          { AttributeName: index.sortKey, AttributeType: 'S' },
        ]),
      ]),
      GlobalSecondaryIndexes: TABLE_INDEXES.map((index) => ({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: index.projection },
      })),
      TimeToLiveSpecification: { AttributeName: TABLE_SHAPE.timeToLiveAttribute, Enabled: true },
    });
  });

  it('declares fewer indexes under -c tableIndexes, for a table that gains one index per deploy', () => {
    const two = new DataStack(new App({ context: { ...testContext(), tableIndexes: 2 } }), 'DataTwo');
    const [table] = Object.values(Template.fromStack(two).findResources('AWS::DynamoDB::Table'));
    const properties = table?.Properties as { GlobalSecondaryIndexes?: { IndexName: string }[] } | undefined;
    expect((properties?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName)).toEqual([
      'gsi1',
      'gsi2',
    ]);
  });

  it('bills on demand, keeps point-in-time recovery and is encrypted', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
      DeletionProtectionEnabled: true,
    });
  });

  it('is retained when the stack is deleted', () => {
    template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  it('has no physical name', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', { TableName: Match.absent() });
  });
});

describe('platform bucket', () => {
  const bucketId = () => logicalIdOf(stack.bucket);
  const bucket = () => resourcesOfType(template, 'AWS::S3::Bucket')[bucketId()];

  it('blocks all public access, encrypts, versions and is retained', () => {
    expect(bucket()).toMatchObject({
      DeletionPolicy: 'Retain',
      Properties: {
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
        VersioningConfiguration: { Status: 'Enabled' },
      },
    });
    expect(bucket()?.Properties.BucketName).toBeUndefined();
  });

  it('refuses every request that is not over TLS', () => {
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId() },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 's3:*',
            Principal: { AWS: '*' },
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });

  it('writes server access logs to a separate, private, TLS-only log bucket', () => {
    const logging = bucket()?.Properties.LoggingConfiguration as { DestinationBucketName: { Ref: string } };
    const logBucketId = logging.DestinationBucketName.Ref;
    expect(logBucketId).not.toBe(bucketId());
    template.hasResource('AWS::S3::Bucket', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        PublicAccessBlockConfiguration: Match.objectLike({
          BlockPublicAcls: true,
          RestrictPublicBuckets: true,
        }),
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      }),
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: logBucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({ Effect: 'Allow', Principal: { Service: 'logging.s3.amazonaws.com' } }),
        ]),
      },
    });
  });
});

describe('JWT key sets', () => {
  it('are two retained secrets, signing and verification, that start empty (the operator CLI writes the keys)', () => {
    const secrets = resourcesOfType(template, 'AWS::SecretsManager::Secret');
    for (const secret of [stack.jwtKeys, stack.jwtPublicKeys]) {
      expect(secrets[logicalIdOf(secret)]).toMatchObject({
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
        Properties: { SecretString: JSON.stringify({ keys: [] }) },
      });
      expect(secrets[logicalIdOf(secret)]?.Properties.Name).toBeUndefined();
    }
    expect(logicalIdOf(stack.jwtKeys)).not.toBe(logicalIdOf(stack.jwtPublicKeys));
  });
});

describe('secrets', () => {
  it('retains every secret of the data stack, the download signer key set included', () => {
    const secrets = resourcesOfType(template, 'AWS::SecretsManager::Secret');
    expect(Object.keys(secrets).sort()).toEqual(
      [stack.jwtKeys, stack.jwtPublicKeys, stack.cursorKey, stack.downloadSigner.secret]
        .map((secret) => logicalIdOf(secret))
        .sort(),
    );
    for (const [id, secret] of Object.entries(secrets)) {
      expect(secret, id).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    }
  });
});
