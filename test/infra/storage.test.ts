import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKET_CORS_RULE } from '../../functions/shared/aws/bucket-cors';
import {
  DOWNLOAD_URL_MAX_SECONDS,
  KEY_RETIREMENT_SECONDS,
  SIGNER_REREAD_SECONDS,
} from '../../functions/shared/aws/download-signer-keys';
import { ROUTE_GROUPS } from '../../functions/shared/routes/route-table';
import { STORED_OBJECT_PREFIXES } from '../../functions/shared/types/object-prefixes';
import { SIGNER_ROTATION_DAYS } from '../../lib/constructs/download-signer';
import { SIGNER_ROTATION_ACTIONS } from '../../lib/grants/function-access';
import { objectPattern } from '../../lib/grants/object-prefixes';
import { resourcesOfType } from './rest-api';
import { logicalIdOf, type SynthesizedApp, synthesizeApp } from './synth';

// Storage resources and grants do not depend on the bundles.
let synth: SynthesizedApp;
beforeAll(() => {
  synth = synthesizeApp({ bundling: false });
});
afterAll(() => synth?.cleanup());

type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: unknown };
const actions = (s: Statement) => (Array.isArray(s.Action) ? s.Action : [s.Action]);
const bucketId = () => logicalIdOf(synth.data.bucket);

describe('platform bucket', () => {
  it('allows browser uploads and downloads through presigned URLs (CORS), and nothing more', () => {
    synth.dataTemplate.hasResourceProperties('AWS::S3::Bucket', {
      CorsConfiguration: {
        CorsRules: [
          {
            AllowedMethods: [...BUCKET_CORS_RULE.allowedMethods],
            AllowedOrigins: ['*'],
            AllowedHeaders: BUCKET_CORS_RULE.allowedHeaders,
            ExposedHeaders: BUCKET_CORS_RULE.exposedHeaders,
            MaxAge: BUCKET_CORS_RULE.maxAgeSeconds,
          },
        ],
      },
    });
    expect(BUCKET_CORS_RULE.allowedMethods).not.toContain('DELETE');
    expect(BUCKET_CORS_RULE.allowedMethods).not.toContain('POST');
  });

  it('is encrypted at rest, private and TLS-only', () => {
    const bucket = resourcesOfType(synth.dataTemplate, 'AWS::S3::Bucket')[bucketId()];
    expect(bucket?.Properties.BucketEncryption).toEqual({
      ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
    });
    expect(bucket?.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    const policies = Object.values(resourcesOfType(synth.dataTemplate, 'AWS::S3::BucketPolicy')).filter(
      (p) => JSON.stringify(p.Properties.Bucket) === JSON.stringify({ Ref: bucketId() }),
    );
    expect(policies).toHaveLength(1);
    const statements = ((policies[0]?.Properties.PolicyDocument ?? {}) as { Statement: Statement[] })
      .Statement;
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Action: 's3:*',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
    // Nothing in the bucket policy grants access: every reader is an IAM principal of this account.
    expect(statements.filter((s) => s.Effect === 'Allow' && JSON.stringify(s).includes('"*"'))).toEqual([]);
  });
});

describe('long-lived download signing', () => {
  it('is a dedicated IAM user whose only permission is GetObject on the stored-object prefixes', () => {
    const users = resourcesOfType(synth.dataTemplate, 'AWS::IAM::User');
    const userId = logicalIdOf(synth.data.downloadSigner.user);
    expect(Object.keys(users)).toEqual([userId]);
    expect(users[userId]?.Properties?.Policies).toBeUndefined();
    expect(users[userId]?.Properties?.ManagedPolicyArns).toBeUndefined();
    const policies = Object.values(resourcesOfType(synth.dataTemplate, 'AWS::IAM::Policy')).filter((p) =>
      JSON.stringify(p.Properties.Users ?? []).includes(userId),
    );
    const statements = policies.flatMap(
      (p) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement,
    );
    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: 's3:GetObject',
        Resource: STORED_OBJECT_PREFIXES.map(objectPattern)
          .sort()
          .map((pattern) => ({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId(), 'Arn'] }, `/${pattern}`]] })),
      },
    ]);
  });

  it('issues no access key from CloudFormation: the secret starts as an empty key set', () => {
    expect(resourcesOfType(synth.dataTemplate, 'AWS::IAM::AccessKey')).toEqual({});
    const secretId = logicalIdOf(synth.data.downloadSigner.secret);
    const secret = resourcesOfType(synth.dataTemplate, 'AWS::SecretsManager::Secret')[secretId];
    expect(JSON.parse(secret?.Properties.SecretString as string)).toEqual({ keys: [] });
  });

  it(`rotates the keys every ${SIGNER_ROTATION_DAYS} days and once on creation, less often than a key retires`, () => {
    const secretId = logicalIdOf(synth.data.downloadSigner.secret);
    const rotationId = logicalIdOf(synth.data.downloadSigner.rotation);
    const schedules = Object.values(
      resourcesOfType(synth.dataTemplate, 'AWS::SecretsManager::RotationSchedule'),
    );
    expect(schedules).toHaveLength(1);
    expect(schedules[0]?.Properties).toEqual({
      SecretId: { Ref: secretId },
      RotationLambdaARN: { 'Fn::GetAtt': [rotationId, 'Arn'] },
      RotationRules: { ScheduleExpression: `rate(${SIGNER_ROTATION_DAYS} days)` },
      RotateImmediatelyOnUpdate: true,
    });
    expect(SIGNER_ROTATION_DAYS * 86_400).toBeGreaterThan(KEY_RETIREMENT_SECONDS);
    expect(KEY_RETIREMENT_SECONDS).toBeGreaterThan(DOWNLOAD_URL_MAX_SECONDS + SIGNER_REREAD_SECONDS);
    const permissions = Object.values(resourcesOfType(synth.dataTemplate, 'AWS::Lambda::Permission'));
    expect(permissions).toEqual([
      expect.objectContaining({
        Properties: {
          Action: 'lambda:InvokeFunction',
          FunctionName: { 'Fn::GetAtt': [rotationId, 'Arn'] },
          Principal: 'secretsmanager.amazonaws.com',
          SourceArn: { Ref: secretId },
        },
      }),
    ]);
  });

  it("lets the rotation manage that user's access keys and that secret's versions, and nothing else", () => {
    const role = synth.data.downloadSigner.rotation.role;
    if (!role) throw new Error('rotation without role');
    const roleId = logicalIdOf(role);
    const statements = Object.values(resourcesOfType(synth.dataTemplate, 'AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p.Properties.Roles ?? []).includes(`"${roleId}"`))
      .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
    const on = (prefix: string) => statements.filter((s) => actions(s).some((a) => a.startsWith(prefix)));
    expect(on('iam:').map((s) => ({ actions: actions(s).sort(), resource: s.Resource }))).toEqual([
      {
        actions: [...SIGNER_ROTATION_ACTIONS.iam].sort(),
        resource: { 'Fn::GetAtt': [logicalIdOf(synth.data.downloadSigner.user), 'Arn'] },
      },
    ]);
    expect(on('secretsmanager:').map((s) => ({ actions: actions(s).sort(), resource: s.Resource }))).toEqual([
      {
        actions: [...SIGNER_ROTATION_ACTIONS.secret].sort(),
        resource: { Ref: logicalIdOf(synth.data.downloadSigner.secret) },
      },
    ]);
    const others = statements.filter(
      (s) => !actions(s).some((a) => /^(iam|secretsmanager|logs|xray):/.test(a)),
    );
    expect(others).toEqual([]);
  });

  it('is readable by the storage function alone, which gets its ARN as DOWNLOAD_SIGNER_SECRET_ARN', () => {
    const secretRef = JSON.stringify(synth.api.resolve(synth.data.downloadSigner.secret.secretArn));
    const functions = resourcesOfType(synth.apiTemplate, 'AWS::Lambda::Function');
    for (const group of ROUTE_GROUPS) {
      const fn = functions[logicalIdOf(synth.api.groups[group].function)];
      const variables = ((fn?.Properties.Environment ?? {}) as { Variables: Record<string, unknown> })
        .Variables;
      if (group === 'storage') expect(variables.DOWNLOAD_SIGNER_SECRET_ARN, group).toBeDefined();
      else expect(variables.DOWNLOAD_SIGNER_SECRET_ARN, group).toBeUndefined();
    }
    const readers = Object.values(resourcesOfType(synth.apiTemplate, 'AWS::IAM::Policy')).filter((p) =>
      (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement.some(
        (s) =>
          actions(s).includes('secretsmanager:GetSecretValue') && JSON.stringify(s.Resource) === secretRef,
      ),
    );
    expect(readers).toHaveLength(1);
    const storageRole = logicalIdOf(synth.api.groups.storage.function.role as never);
    expect(JSON.stringify(readers[0]?.Properties.Roles)).toContain(storageRole);
  });
});
