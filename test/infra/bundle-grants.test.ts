import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppFunction, PROJECT_ROOT } from '../../lib/constructs/app-function';
import { sendFailuresTo } from '../../lib/grants/failure-queue';
import { importOnce } from '../bench/bundles';
import { checkFunctionGrants, type FunctionGrants } from './function-grants';
import { type SynthesizedApp, synthesizeApp, testContext } from './synth';

// The check reads the deployed bundles, so this file synthesizes with bundling (every function, once), under
// the project's git-ignored `cdk.out/`, where a bundle resolves the AWS SDK it leaves to the runtime.
let synth: SynthesizedApp;
let report: { functions: FunctionGrants[]; problems: string[] };
beforeAll(async () => {
  mkdirSync(join(PROJECT_ROOT, 'cdk.out'), { recursive: true });
  synth = synthesizeApp({ outdir: mkdtempSync(join(PROJECT_ROOT, 'cdk.out', 'grants-')) });
  report = await checkFunctionGrants(synth.app, synth.assembly);
});
afterAll(() => synth?.cleanup());

describe('grants against the calls of each bundle', () => {
  it('grants every function exactly the AWS calls its bundle can make', () => {
    expect(report.problems).toEqual([]);
  });

  it('covers every function of the app, each with the calls it makes', () => {
    const byPath = new Map(report.functions.map((f) => [f.path.split('/').slice(1).join('/'), f]));
    expect(report.functions.length).toBeGreaterThanOrEqual(15);
    expect(byPath.get('AuthorizerFunction')?.granted).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:UpdateItem',
      'secretsmanager:GetSecretValue',
    ]);
    expect(byPath.get('Group-public/Function')?.granted).toEqual(['dynamodb:Query']);
    const dynadata = byPath.get('Group-dynadata/Function');
    expect(dynadata?.granted.filter((a) => a.startsWith('s3:'))).toEqual([]);
    expect(dynadata?.calls).toContain('lib-dynamodb#TransactWriteCommand');
    // A one-action transaction's single-item write (`transactions.ts`), counted as the transaction.
    expect(dynadata?.calls).toContain('lib-dynamodb#DynamoDBDocument');
  });
});

describe('environments', () => {
  it('starts every bundle with the environment its function is given (no variable its modules need is lost)', () => {
    const functions = synth.app.node.findAll().filter((c): c is AppFunction => c instanceof AppFunction);
    for (const fn of functions) {
      const stack = Stack.of(fn);
      const template = synth.assembly.getStackArtifact(stack.artifactId).template as {
        Resources: Record<string, { Properties: { Environment?: { Variables?: Record<string, unknown> } } }>;
      };
      const resource = template.Resources[stack.getLogicalId(fn.node.defaultChild as never)];
      const variables = resource?.Properties.Environment?.Variables ?? {};
      const environment = Object.fromEntries(
        Object.entries(variables).map(([name, value]) => [
          name,
          typeof value === 'string' ? value : `deploy-time-${name.toLowerCase()}`,
        ]),
      );
      const asset = (resource as { Metadata?: Record<string, string> }).Metadata?.['aws:asset:path'];
      expect(
        () => importOnce(join(synth.assembly.directory, asset as string, 'index.mjs'), environment),
        fn.node.path,
      ).not.toThrow();
    }
  });
});

describe('the check itself', () => {
  it('fires on a grant beyond the bundle and on a call without a grant, and ignores dead code', async () => {
    const app = new App({ context: testContext() });
    const stack = new Stack(app, 'Scratch');
    const table = new Table(stack, 'Table', { partitionKey: { name: 'pk', type: AttributeType.STRING } });
    const data = {
      table,
      bucket: new Bucket(stack, 'Bucket'),
      jwtKeys: new Secret(stack, 'Keys'),
      jwtPublicKeys: new Secret(stack, 'PublicKeys'),
    };
    new AppFunction(stack, 'Scratch', {
      entry: 'test/infra/fixtures/scratch-function.ts',
      description: 'scratch',
      access: { table: { GetItem: ['company'], UpdateItem: ['usage'] } },
      data,
    });
    // Lambda sends a failed invocation to the destination with the role: not a call of the bundle.
    const exact = { table: { GetItem: ['company'], DeleteItem: ['company'] }, failureQueue: true } as const;
    const parked = new AppFunction(stack, 'Parked', {
      entry: 'test/infra/fixtures/scratch-function.ts',
      description: 'scratch with a failure queue',
      access: exact,
      data,
    });
    sendFailuresTo(parked, new Queue(stack, 'Failures'), {
      retryAttempts: 2,
      maxEventAge: Duration.hours(1),
    });
    new AppFunction(stack, 'Unparked', {
      entry: 'test/infra/fixtures/scratch-function.ts',
      description: 'scratch declaring a failure queue it lacks',
      access: exact,
      data,
    });
    const assembly = app.synth();
    try {
      const { problems } = await checkFunctionGrants(app, assembly);
      expect(problems).toEqual([
        'Scratch/Scratch: grants dynamodb:UpdateItem, which its bundle never calls',
        'Scratch/Scratch: calls dynamodb:DeleteItem (lib-dynamodb#DeleteCommand) without a grant or a neverCalls reason',
        'Scratch/Unparked: declares a failure queue, but its asynchronous invocations have no on-failure queue',
      ]);
    } finally {
      rmSync(assembly.directory, { recursive: true, force: true });
    }
  });
});
