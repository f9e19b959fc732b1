import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { stateMachineArnVariable } from '../../functions/shared/types/state-machines';
import { startStackProcess } from './local-stack-process';

declare module 'vitest' {
  export interface ProvidedContext {
    stack: { apiUrl: string; dataDir: string; demoApiKey: string; env: Record<string, string> };
  }
}

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
      ...Object.fromEntries(
        Object.entries(d.stateMachineArns).map(([name, arn]) => [stateMachineArnVariable(name), arn]),
      ),
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      JWT_KEYS_FILE: join(dataDir, 'jwt-signing-keys.json'),
      ALLOW_LOOPBACK_WEBHOOKS: 'true',
      DYNADATA_CURSOR_SECRET: readFileSync(join(dataDir, 'dynadata-cursor-key'), 'utf8').trim(),
    },
  });
  return async () => {
    await stack.stop();
    if (process.env.STACK_LOG) writeFileSync(process.env.STACK_LOG, stack.output());
    rmSync(dataDir, { recursive: true, force: true });
  };
}
