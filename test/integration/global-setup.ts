import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import type { ErrorCode } from '../../functions/shared/errors';
import { codesByStatus } from '../../functions/shared/http/openapi';
import { ROUTES } from '../../functions/shared/routes/route-table';
import { queueUrlVariable } from '../../functions/shared/types/queues';
import { stateMachineArnVariable } from '../../functions/shared/types/state-machines';
import { startStackProcess } from './local-stack-process';

declare module 'vitest' {
  export interface ProvidedContext {
    stack: { apiUrl: string; dataDir: string; demoApiKey: string; env: Record<string, string> };
  }
}

/**
 * Codes the stack cannot be made to answer from outside, each with why and where it is proven instead.
 */
const NOT_PROVOKED_FROM_OUTSIDE: Partial<Record<ErrorCode, string>> = {
  internal: 'answered only when something is broken; every test fails on an unexpected 5xx',
  service_unavailable:
    'a Step Functions execution that cannot start, or a throttled usage meter write (DynamoDB Local never ' +
    'throttles); the unit tests of the transcode domain and test/unit/meter-throttling.test.ts stub them',
};

const assertEveryDeclaredCodeAnswered = (answered: Set<string>): void => {
  const declared = new Set(ROUTES.flatMap((route) => [...codesByStatus(route).values()].flat()));
  const missing = [...declared].filter((code) => !answered.has(code) && !(code in NOT_PROVOKED_FROM_OUTSIDE));
  if (missing.length > 0) {
    // An error thrown while vitest closes is only printed; the exit code is what CI reads.
    process.exitCode = 1;
    throw new Error(
      `declared problem codes no integration test made the stack answer: ${missing.join(', ')}`,
    );
  }
};

/** One local stack per test run, on random ports with a temporary data directory. */
export default async function setup(project: TestProject) {
  const dataDir = mkdtempSync(join(tmpdir(), 'api-v1-it-'));
  const stack = await startStackProcess(dataDir);
  const d = stack.description;
  project.provide('stack', {
    apiUrl: d.apiUrl,
    dataDir,
    demoApiKey: stack.demoApiKey,
    env: {
      TABLE_NAME: d.tableName,
      BUCKET_NAME: d.bucketName,
      AWS_REGION: d.region,
      DYNAMODB_ENDPOINT: d.dynamodbEndpoint,
      S3_ENDPOINT: d.s3Endpoint,
      SFN_ENDPOINT: d.stepFunctionsEndpoint,
      SQS_ENDPOINT: d.queueEndpoint,
      ...Object.fromEntries(Object.entries(d.queueUrls).map(([name, url]) => [queueUrlVariable(name), url])),
      ...Object.fromEntries(
        Object.entries(d.stateMachineArns).map(([name, arn]) => [stateMachineArnVariable(name), arn]),
      ),
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      JWT_KEYS_FILE: join(dataDir, 'jwt-signing-keys.json'),
      JWT_PUBLIC_KEYS_FILE: join(dataDir, 'jwt-verification-keys.json'),
      ALLOW_LOOPBACK_WEBHOOKS: String(d.outbound.allowLoopback),
      OUTBOUND_DENIED_LOOPBACK_PORTS: d.outbound.deniedLoopbackPorts.join(','),
      DYNADATA_CURSOR_SECRET: readFileSync(join(dataDir, 'dynadata-cursor-key'), 'utf8').trim(),
      WORKFLOW_SECRETS_LOCAL_KEY: readFileSync(join(dataDir, 'workflow-secrets-key'), 'utf8').trim(),
      // The local S3 accepts only the stack's own generated key.
      ...(() => {
        const { accessKeyId, secretAccessKey } = JSON.parse(
          readFileSync(join(dataDir, 's3-credentials.json'), 'utf8'),
        ) as { accessKeyId: string; secretAccessKey: string };
        return { S3_ACCESS_KEY_ID: accessKeyId, S3_SECRET_ACCESS_KEY: secretAccessKey };
      })(),
    },
  });
  return async () => {
    await stack.stop();
    if (process.env.STACK_LOG) writeFileSync(process.env.STACK_LOG, stack.output());
    rmSync(dataDir, { recursive: true, force: true });
    // `npm test` runs every integration file: then every problem code the document declares must have been
    // answered by the stack at least once (the fuzz and the behaviour tests together).
    if (process.env.CHECK_ANSWERED_CODES === 'true') assertEveryDeclaredCodeAnswered(stack.answeredCodes());
  };
}
