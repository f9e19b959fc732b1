import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ROUTE_GROUPS, type RouteGroup } from '../../functions/shared/routes/route-table';
import { METER_PARTITION_PATTERN } from '../../lib/access';
import type { AppFunction } from '../../lib/constructs/app-function';
import { resourcesOfType } from './rest-api';
import { logicalIdOf, type SynthesizedApp, synthesizeApp } from './synth';

// Grants do not depend on the bundles, so this file synthesizes without bundling.
let synth: SynthesizedApp;
beforeAll(() => {
  synth = synthesizeApp({ bundling: false });
});
afterAll(() => synth?.cleanup());

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

const WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];
const BUCKET_GROUPS: RouteGroup[] = [
  'storage',
  'transcodes',
  'transcriptions',
  'speech',
  'contacts',
  'dynadata',
  'workflows',
];

/** Every statement of every policy attached to the function's role. */
const statementsOf = (fn: AppFunction): Statement[] => {
  if (!fn.role) throw new Error('function without a role');
  const role = { Ref: logicalIdOf(fn.role) };
  return Object.values(resourcesOfType(synth.apiTemplate, 'AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(JSON.stringify(role)))
    .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
};
const actionsOf = (statements: Statement[]): string[] =>
  statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
const groupFunction = (group: RouteGroup) => synth.api.groups[group].function;

describe('least privilege', () => {
  it('lets the authorizer read table items by key and the JWT key set, and nothing else', () => {
    const actions = new Set(actionsOf(statementsOf(synth.api.authorizerFunction)));
    expect([...actions].sort()).toEqual([
      'dynamodb:GetItem',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      'secretsmanager:DescribeSecret',
      'secretsmanager:GetSecretValue',
      'xray:PutTelemetryRecords',
      'xray:PutTraceSegments',
    ]);
  });

  it('gives the authorizer and the public group no write and no S3 action', () => {
    for (const fn of [synth.api.authorizerFunction, groupFunction('public')]) {
      const actions = actionsOf(statementsOf(fn));
      for (const write of WRITE_ACTIONS) expect(actions).not.toContain(write);
      expect(actions.filter((a) => a.startsWith('s3:'))).toEqual([]);
    }
  });

  it('grants polly:SynthesizeSpeech, and no other Polly action, to the speech and workflows groups only', () => {
    // CDK merges statements on the same resource (`*`, shared with the X-Ray actions): compare actions.
    const polly = (group: RouteGroup) =>
      actionsOf(statementsOf(groupFunction(group))).filter((a) => a.startsWith('polly:'));
    expect(polly('speech')).toEqual(['polly:SynthesizeSpeech']);
    // The workflow action actions/speech/synthesize calls the same domain function.
    expect(polly('workflows')).toEqual(['polly:SynthesizeSpeech']);
    for (const group of Object.keys(synth.api.groups) as RouteGroup[])
      if (group !== 'speech' && group !== 'workflows') expect(polly(group), group).toEqual([]);
    expect(actionsOf(statementsOf(synth.api.authorizerFunction)).some((a) => a.startsWith('polly:'))).toBe(
      false,
    );
  });

  it('lets company and usage write nothing but their usage meter partition', () => {
    for (const group of ['company', 'usage'] as const) {
      const statements = statementsOf(groupFunction(group));
      const actions = actionsOf(statements);
      for (const write of ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem']) {
        expect(actions, group).not.toContain(write);
      }
      const updates = statements.filter((s) => actionsOf([s]).includes('dynamodb:UpdateItem'));
      expect(updates, group).toHaveLength(1);
      expect(updates[0]?.Condition).toEqual({
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [METER_PARTITION_PATTERN] },
      });
    }
  });

  it('reaches the bucket only from the groups that store objects', () => {
    const withBucket = ROUTE_GROUPS.filter((group) =>
      actionsOf(statementsOf(groupFunction(group))).some((a) => a.startsWith('s3:')),
    );
    expect(withBucket.sort()).toEqual([...BUCKET_GROUPS].sort());
  });

  it('limits object access to the companies/ prefix', () => {
    for (const group of BUCKET_GROUPS) {
      for (const statement of statementsOf(groupFunction(group)).filter((s) =>
        actionsOf([s]).some((a) => a.startsWith('s3:')),
      )) {
        const resource = JSON.stringify(statement.Resource);
        if (actionsOf([statement]).includes('s3:ListBucket')) {
          expect(statement.Condition).toEqual({ StringLike: { 's3:prefix': ['companies/*'] } });
        } else {
          expect(resource, group).toMatch(/"\/companies\/\*"\]\]\}$/);
        }
      }
    }
  });

  it('names the table and gsi1 by exact ARN, never every index', () => {
    for (const fn of [synth.api.authorizerFunction, ...ROUTE_GROUPS.map(groupFunction)]) {
      const resources = JSON.stringify(statementsOf(fn).map((s) => s.Resource));
      expect(resources).not.toContain('/index/*');
    }
  });

  it('gives the MCP group exactly what its tools call: table reads and item writes, the cursor key', () => {
    const statements = statementsOf(groupFunction('mcp'));
    expect([...new Set(actionsOf(statements))].sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:BatchWriteItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      'secretsmanager:DescribeSecret',
      'secretsmanager:GetSecretValue',
      'xray:PutTelemetryRecords',
      'xray:PutTraceSegments',
    ]);
    // No bucket and no state machine: no tool stores a file or starts (or stops) an execution.
    expect(JSON.stringify(statements.map((s) => s.Resource))).not.toMatch(/Bucket|StateMachine|execution/i);
  });

  it('attaches no managed policy to a function role', () => {
    for (const role of Object.values(resourcesOfType(synth.apiTemplate, 'AWS::IAM::Role'))) {
      const assumedByLambda = JSON.stringify(role.Properties.AssumeRolePolicyDocument).includes('lambda');
      if (assumedByLambda) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });

  it('passes the JWT key set secret to the authorizer and the workflows group (the minting action) only', () => {
    for (const [logicalId, fn] of Object.entries(
      resourcesOfType(synth.apiTemplate, 'AWS::Lambda::Function'),
    )) {
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      const reads =
        logicalId === logicalIdOf(synth.api.authorizerFunction) ||
        logicalId === logicalIdOf(synth.api.groups.workflows.function);
      expect('JWT_KEYS_SECRET_ARN' in variables, logicalId).toBe(reads);
    }
  });
});

describe('meter partition pattern', () => {
  it('matches the usage meter keys and no company profile key', async () => {
    // The data modules read their configuration on import.
    vi.stubEnv('TABLE_NAME', 'infra-test-table');
    vi.stubEnv('BUCKET_NAME', 'infra-test-bucket');
    vi.stubEnv('AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED', 'true');
    const { usageMonthKey, usageTotalsKey } = await import('../../functions/shared/data/usage-meters');
    const { companyKey } = await import('../../functions/shared/data/companies');
    vi.unstubAllEnvs();
    const literal = (part: string) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const pattern = new RegExp(`^${METER_PARTITION_PATTERN.split('*').map(literal).join('.*')}$`);
    expect(usageMonthKey('co_1', '2026-01').pk).toMatch(pattern);
    expect(usageTotalsKey('co_1').pk).toMatch(pattern);
    expect(companyKey('co_1').pk).not.toMatch(pattern);
  });
});
