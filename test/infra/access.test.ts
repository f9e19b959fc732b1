import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_GROUPS, ROUTES, type RouteGroup } from '../../functions/shared/routes/route-table';
import { GROUP_ACCESS } from '../../lib/access';
import type { AppFunction } from '../../lib/constructs/app-function';
import { stringLikeRegExp } from '../../lib/grants/partitions';
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

/** Every statement of every policy attached to the function's role. */
const statementsOf = (fn: AppFunction): Statement[] => {
  if (!fn.role) throw new Error('function without a role');
  const role = { Ref: logicalIdOf(fn.role) };
  const template = Stack.of(fn) === synth.jobs ? Template.fromStack(synth.jobs) : synth.apiTemplate;
  return Object.values(resourcesOfType(template, 'AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(JSON.stringify(role)))
    .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
};
const actionsOf = (statements: Statement[]): string[] =>
  statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
const groupFunction = (group: RouteGroup) => synth.api.groups[group].function;
const leadingKeys = (s: Statement): string[] =>
  (s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] as string[] | undefined) ?? [];

/**
 * Whether the role's statements allow `action` on the table (or `gsi1`) for a request whose partition keys are
 * `keys`: a small evaluator of exactly the statement shapes `grantDataAccess` writes.
 */
const allows = (fn: AppFunction, action: string, on: 'table' | 'gsi1', keys: string[]): boolean =>
  statementsOf(fn).some(
    (s) =>
      s.Effect === 'Allow' &&
      actionsOf([s]).includes(action) &&
      JSON.stringify(s.Resource).includes('/index/') === (on === 'gsi1') &&
      keys.every((key) => leadingKeys(s).some((pattern) => stringLikeRegExp(pattern).test(key))),
  );

const CO = 'co_01jd5x2v8k3m4n5p6q7r8s9t0v';
const HASH = 'a'.repeat(64);

describe('least privilege on the table', () => {
  it('conditions every table statement of every function on the partitions it touches', () => {
    const functions = [
      synth.api.authorizerFunction,
      synth.api.logShipperFunction,
      ...ROUTE_GROUPS.map(groupFunction),
    ];
    for (const fn of functions) {
      for (const statement of statementsOf(fn).filter((s) =>
        actionsOf([s]).some((a) => a.startsWith('dynamodb:')),
      )) {
        expect(leadingKeys(statement).length, fn.node.path).toBeGreaterThan(0);
        expect(JSON.stringify(statement.Resource), fn.node.path).not.toContain('/index/*');
      }
    }
  });

  it('lets the authorizer read only revocations in a batch, and only workflows (minted tokens) and company (key revocations) write them', () => {
    const credentials = `CO#${CO}#CRED`;
    expect(allows(synth.api.authorizerFunction, 'dynamodb:BatchGetItem', 'table', [credentials])).toBe(true);
    expect(allows(synth.api.authorizerFunction, 'dynamodb:BatchGetItem', 'table', [`CO#${CO}#USAGE`])).toBe(
      false,
    );
    expect(allows(synth.api.authorizerFunction, 'dynamodb:PutItem', 'table', [credentials])).toBe(false);
    for (const group of ROUTE_GROUPS) {
      expect(allows(groupFunction(group), 'dynamodb:PutItem', 'table', [credentials]), group).toBe(
        group === 'workflows' || group === 'company',
      );
    }
  });

  it('lets only the authorizer read API-key items by key, and only company list and write them', () => {
    expect(allows(synth.api.authorizerFunction, 'dynamodb:GetItem', 'table', [`APIKEY#${HASH}`])).toBe(true);
    // `lastUsedAt`, at most once an hour a key.
    expect(allows(synth.api.authorizerFunction, 'dynamodb:UpdateItem', 'table', [`APIKEY#${HASH}`])).toBe(
      true,
    );
    expect(allows(synth.api.authorizerFunction, 'dynamodb:UpdateItem', 'table', [`CO#${CO}`])).toBe(false);
    for (const group of ROUTE_GROUPS) {
      const fn = groupFunction(group);
      for (const action of ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query']) {
        expect(allows(fn, action, 'table', [`APIKEY#${HASH}`]), `${group} ${action}`).toBe(false);
      }
      // `/v1/keys`: the company's list, and a key's creation and revocation.
      expect(allows(fn, 'dynamodb:Query', 'gsi1', [`CO#${CO}#APIKEYS`]), group).toBe(group === 'company');
      for (const action of ['dynamodb:PutItem', 'dynamodb:UpdateItem'])
        expect(allows(fn, action, 'table', [`APIKEY#${HASH}`]), `${group} ${action}`).toBe(
          group === 'company',
        );
    }
  });

  it('lets only the events group change the message channel, and message delivery read it', () => {
    const channel = `CO#${CO}#CHANNEL`;
    for (const group of ROUTE_GROUPS) {
      for (const action of ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem'])
        expect(allows(groupFunction(group), action, 'table', [channel]), `${group} ${action}`).toBe(
          group === 'events' && action !== 'dynamodb:UpdateItem',
        );
    }
  });

  it('lets the storage group find the unfinished jobs reading a file: their keys in work and gsi1, then the jobs', () => {
    const fn = groupFunction('storage');
    const unfinished = statementsOf(fn).find((s) => leadingKeys(s).includes('TRANSCODE#UNFINISHED'));
    expect(actionsOf(unfinished ? [unfinished] : [])).toEqual(['dynamodb:Query']);
    // The keys-only work index, and gsi1 for jobs marked before it (decision 0040).
    expect(JSON.stringify(unfinished?.Resource)).toContain('/index/work');
    expect(JSON.stringify(unfinished?.Resource)).toContain('/index/gsi1');
    expect(allows(fn, 'dynamodb:Query', 'gsi1', ['WFRUN#UNFINISHED'])).toBe(false);
    expect(allows(fn, 'dynamodb:BatchGetItem', 'table', [`CO#${CO}#TRANSCODE`])).toBe(true);
    expect(allows(fn, 'dynamodb:BatchGetItem', 'table', [`CO#${CO}#TRANSCRIPTION`])).toBe(true);
    expect(allows(fn, 'dynamodb:GetItem', 'table', [`CO#${CO}#TRANSCODE`])).toBe(false);
  });

  it('keeps the Dynadata group within Dynadata, its references and its own bookkeeping', () => {
    const fn = groupFunction('dynadata');
    expect(allows(fn, 'dynamodb:GetItem', 'table', [`CO#${CO}#DD#contacts`])).toBe(true);
    expect(allows(fn, 'dynamodb:Query', 'gsi1', [`CO#${CO}#DD#contacts#IX`])).toBe(true);
    expect(allows(fn, 'dynamodb:Query', 'table', [`CO#${CO}#LOG`])).toBe(true);
    expect(allows(fn, 'dynamodb:PutItem', 'table', [`CO#${CO}#LOG`])).toBe(false);
    // Defining a type reads the company's limits (its plan and overrides: `dynadataTypes`, fields per type).
    expect(allows(fn, 'dynamodb:GetItem', 'table', [`CO#${CO}`])).toBe(false);
    expect(allows(fn, 'dynamodb:BatchGetItem', 'table', [`CO#${CO}`])).toBe(true);
    expect(allows(fn, 'dynamodb:GetItem', 'table', ['PLAN'])).toBe(true);
    expect(allows(fn, 'dynamodb:PutItem', 'table', ['PLAN'])).toBe(false);
    expect(allows(fn, 'dynamodb:PutItem', 'table', [`CO#${CO}#USAGE`])).toBe(false);
    expect(allows(fn, 'dynamodb:UpdateItem', 'table', [`CO#${CO}#TRANSCODE`])).toBe(false);
    expect(allows(fn, 'dynamodb:Query', 'gsi1', ['TRANSCODE#UNFINISHED'])).toBe(false);
  });

  it('lets company write only its keys and their records, and usage only its meter and alert thresholds', () => {
    const usage = groupFunction('usage');
    for (const write of ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem']) {
      expect(actionsOf(statementsOf(usage))).not.toContain(write);
    }
    const company = groupFunction('company');
    expect(actionsOf(statementsOf(company))).not.toContain('dynamodb:BatchWriteItem');
    for (const fn of [usage, company])
      expect(allows(fn, 'dynamodb:UpdateItem', 'table', [`CO#${CO}#USAGE`])).toBe(true);
    // `PUT /v1/usage/alerts` updates the company profile; the company group never writes it.
    expect(allows(usage, 'dynamodb:UpdateItem', 'table', [`CO#${CO}`])).toBe(true);
    expect(allows(company, 'dynamodb:UpdateItem', 'table', [`CO#${CO}`])).toBe(false);
    expect(allows(company, 'dynamodb:PutItem', 'table', [`CO#${CO}`])).toBe(false);
    // A key (its item, the count of active keys, its revocation) and the idempotency of its creation.
    for (const key of [`APIKEY#${HASH}`, `CO#${CO}#CRED`, `CO#${CO}#IDEM`])
      expect(allows(company, 'dynamodb:PutItem', 'table', [key]), key).toBe(true);
    expect(allows(company, 'dynamodb:DeleteItem', 'table', [`APIKEY#${HASH}`])).toBe(false);
    expect(allows(usage, 'dynamodb:UpdateItem', 'table', [`CO#${CO}#IDEM`])).toBe(false);
  });

  it('lets the workflows group save definitions and workflow runs only read them', () => {
    const worker = synth.jobs.node.findAll().find((c) => c.node.path.endsWith('WorkflowRuns/Worker')) as
      | AppFunction
      | undefined;
    if (!worker) throw new Error('no workflow run worker');
    const group = groupFunction('workflows');
    expect(allows(group, 'dynamodb:Query', 'table', [`CO#${CO}#WF`])).toBe(true);
    expect(allows(group, 'dynamodb:PutItem', 'table', [`CO#${CO}#WFRUN#wr_1`])).toBe(true);
    // PUT and DELETE /v1/workflows/{id}: head, versions and count, never a DeleteItem (a delete is a tombstone).
    for (const action of ['dynamodb:PutItem', 'dynamodb:UpdateItem'])
      expect(allows(group, action, 'table', [`CO#${CO}#WF`]), action).toBe(true);
    expect(allows(group, 'dynamodb:DeleteItem', 'table', [`CO#${CO}#WF`])).toBe(false);
    for (const action of ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'])
      expect(allows(groupFunction('mcp'), action, 'table', [`CO#${CO}#WF`]), action).toBe(false);
    const workerAllows = (action: string, key: string) => allows(worker, action, 'table', [key]);
    expect(workerAllows('dynamodb:GetItem', `CO#${CO}#WF`)).toBe(true);
    expect(workerAllows('dynamodb:UpdateItem', `CO#${CO}#WFRUN#wr_1`)).toBe(true);
    // The worker moves runs the group created; it creates none and writes no definition.
    expect(workerAllows('dynamodb:PutItem', `CO#${CO}#WFRUN#wr_1`)).toBe(false);
    expect(workerAllows('dynamodb:UpdateItem', `CO#${CO}#WF`)).toBe(false);
  });

  it('gives the public group the plan catalogue only', () => {
    const fn = groupFunction('public');
    expect(allows(fn, 'dynamodb:Query', 'table', ['PLAN'])).toBe(true);
    expect(allows(fn, 'dynamodb:Query', 'table', [`CO#${CO}`])).toBe(false);
    expect(actionsOf(statementsOf(fn)).filter((a) => a.startsWith('dynamodb:'))).toEqual(['dynamodb:Query']);
  });

  it('grants idempotency records to exactly the groups with an idempotent route, and the MCP group', () => {
    for (const group of ROUTE_GROUPS) {
      // The MCP server's tools that change data take an `idempotencyKey` argument.
      const idempotent =
        group === 'mcp' ||
        ROUTES.some((r) => r.group === group && 'idempotency' in r && r.idempotency === 'keyed');
      const fn = groupFunction(group);
      for (const action of [
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
      ]) {
        expect(allows(fn, action, 'table', [`CO#${CO}#IDEM`]), `${group} ${action}`).toBe(idempotent);
      }
    }
  });

  it('lets no function read or write another partition family through a batch that mixes one in', () => {
    const fn = groupFunction('usage');
    expect(allows(fn, 'dynamodb:BatchGetItem', 'table', [`CO#${CO}`, `CO#${CO}#USAGE`, 'PLAN'])).toBe(true);
    expect(allows(fn, 'dynamodb:BatchGetItem', 'table', [`CO#${CO}#USAGE`, `APIKEY#${HASH}`])).toBe(false);
  });
});

describe('least privilege elsewhere', () => {
  it('reaches the bucket only from the groups that call S3, on their own object prefixes, without listing', () => {
    const withBucket = ROUTE_GROUPS.filter((group) =>
      actionsOf(statementsOf(groupFunction(group))).some((a) => a.startsWith('s3:')),
    );
    // The MCP group runs workflows (run_workflow): speech audio and large step outputs.
    expect(withBucket.sort()).toEqual(['mcp', 'speech', 'storage', 'workflows']);
    for (const group of withBucket) {
      for (const statement of statementsOf(groupFunction(group)).filter((s) =>
        actionsOf([s]).some((a) => a.startsWith('s3:')),
      )) {
        expect(actionsOf([statement])).not.toContain('s3:ListBucket');
        expect(JSON.stringify(statement.Resource), group).toMatch(
          /"\/companies\/\*\/[a-z-]+(\/runs)?\/\*"\]\]\}/,
        );
        expect(JSON.stringify(statement.Resource), group).not.toMatch(/"\/companies\/\*"/);
      }
    }
    expect(GROUP_ACCESS.speech.objects).toEqual({
      's3:GetObject': ['speechJobs'],
      's3:PutObject': ['speech', 'speechJobs'],
      's3:DeleteObject': ['speech', 'speechJobs'],
    });
  });

  it('lets the authorizer read table items by key (revocations in one batch), note when a key was used and read the JWT verification keys, and nothing else', () => {
    expect([...new Set(actionsOf(statementsOf(synth.api.authorizerFunction)))].sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:UpdateItem',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      'secretsmanager:GetSecretValue',
      'xray:PutTelemetryRecords',
      'xray:PutTraceSegments',
    ]);
  });

  it("never lets the authorizer's role read the JWT signing keys: only the public verification keys", () => {
    const readable = statementsOf(synth.api.authorizerFunction)
      .filter((s) => s.Effect === 'Allow' && actionsOf([s]).some((a) => a.startsWith('secretsmanager:')))
      .map((s) => JSON.stringify(s.Resource));
    const signing = logicalIdOf(synth.data.jwtKeys);
    const verification = logicalIdOf(synth.data.jwtPublicKeys);
    expect(readable).toHaveLength(1);
    expect(readable[0]).toContain(verification);
    for (const resource of readable) {
      expect(resource).not.toContain(signing);
      expect(resource).not.toContain('"*"');
    }
  });

  it('grants polly:SynthesizeSpeech, and no other Polly action, to the groups that synthesize speech only', () => {
    // CDK merges statements on the same resource (`*`, shared with the X-Ray actions): compare actions.
    const polly = (group: RouteGroup) =>
      actionsOf(statementsOf(groupFunction(group))).filter((a) => a.startsWith('polly:'));
    expect(polly('speech')).toEqual(['polly:SynthesizeSpeech']);
    // The workflow action actions/speech/synthesize calls the same domain function.
    // The workflow action actions/speech/synthesize, in runs of the route and of the MCP tool run_workflow.
    expect(polly('workflows')).toEqual(['polly:SynthesizeSpeech']);
    expect(polly('mcp')).toEqual(['polly:SynthesizeSpeech']);
    for (const group of ROUTE_GROUPS)
      if (!['speech', 'workflows', 'mcp'].includes(group)) expect(polly(group), group).toEqual([]);
  });

  it('gives the MCP group exactly what its tools call: reads by id, the usage snapshot, Dynadata items, sync workflow runs', () => {
    const fn = groupFunction('mcp');
    const statements = statementsOf(fn);
    expect([...new Set(actionsOf(statements))].sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
      // send_message with `sendAt` creates the message's schedule, handing the scheduler role over.
      'iam:PassRole',
      // The workflow secrets a sync run's definition references: unwrapped, never made.
      'kms:Decrypt',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      'polly:SynthesizeSpeech',
      's3:DeleteObject',
      's3:GetObject',
      's3:PutObject',
      'scheduler:CreateSchedule',
      'scheduler:DeleteSchedule',
      'scheduler:UpdateSchedule',
      'secretsmanager:GetSecretValue',
      'sqs:SendMessage',
      'states:StartExecution',
      'xray:PutTelemetryRecords',
      'xray:PutTraceSegments',
    ]);
    // run_workflow starts the machines its actions start and hands a run off to the `workflow-run` queue; no tool
    // stops an execution, the tools that change data store idempotency records (their `idempotencyKey`), and
    // the only object read back is a speech job's text, before an earlier result is reused
    // (`actions/media/speech`).
    expect(actionsOf(statements)).not.toContain('states:StopExecution');
    for (const key of [`CO#${CO}#TRANSCODE`, `CO#${CO}#TRANSCRIPTION`, `CO#${CO}#WFRUN#wr_1`]) {
      expect(allows(fn, 'dynamodb:GetItem', 'table', [key]), key).toBe(true);
    }
    expect(allows(fn, 'dynamodb:PutItem', 'table', [`CO#${CO}#IDEM`])).toBe(true);
    expect(allows(fn, 'dynamodb:PutItem', 'table', [`CO#${CO}#CRED`])).toBe(false);
    // It lists the names of workflow secrets and reads the ones a run uses; it stores none.
    expect(allows(fn, 'dynamodb:Query', 'table', [`CO#${CO}#WFSECRET`])).toBe(true);
    expect(allows(fn, 'dynamodb:PutItem', 'table', [`CO#${CO}#WFSECRET`])).toBe(false);
  });

  it('attaches no managed policy to a function role', () => {
    for (const role of Object.values(resourcesOfType(synth.apiTemplate, 'AWS::IAM::Role'))) {
      const assumedByLambda = JSON.stringify(role.Properties.AssumeRolePolicyDocument).includes('lambda');
      if (assumedByLambda) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });

  it('passes the signing keys to what runs minting steps only (the workflows group, the async step worker), the verification keys to the authorizer only', () => {
    const functions = [
      ...Object.entries(resourcesOfType(synth.apiTemplate, 'AWS::Lambda::Function')),
      ...Object.entries(resourcesOfType(Template.fromStack(synth.jobs), 'AWS::Lambda::Function')),
      ...Object.entries(resourcesOfType(synth.dataTemplate, 'AWS::Lambda::Function')),
    ];
    expect(functions.length).toBeGreaterThanOrEqual(15);
    const worker = synth.jobs.node.findAll().find((c) => c.node.path.endsWith('WorkflowRuns/Worker'));
    if (!worker) throw new Error('no workflow run worker');
    const stepWorker = logicalIdOf(worker as AppFunction);
    for (const [logicalId, fn] of functions) {
      const variables =
        (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
      const mints =
        logicalId === logicalIdOf(synth.api.groups.workflows.function) || logicalId === stepWorker;
      const verifies = logicalId === logicalIdOf(synth.api.authorizerFunction);
      expect('JWT_KEYS_SECRET_ARN' in variables, logicalId).toBe(mints);
      expect('JWT_PUBLIC_KEYS_SECRET_ARN' in variables, logicalId).toBe(verifies);
    }
  });
});
