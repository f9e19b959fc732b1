import { execFileSync, execSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../functions/shared/http/openapi';
import { lazyModuleCommands } from '../../lib/constructs/app-function';
import { LAZY_MODULE_ALIASES, LAZY_MODULES } from '../../lib/constructs/route-group';
import { buildGroupBundle } from '../fixtures/group-bundle';

/**
 * The public group is bundled with the OpenAPI document's generator built beside it as a lazy module
 * (`#lazy/openapi`, every area's routes with zod of its own): this bundles the group and builds its lazy
 * modules as the stacks do, then answers `GET /v1/openapi.json` with them in a plain Node process (which
 * resolves `#lazy/openapi` from the asset's `package.json`, as Lambda does), and requires the document the
 * source generates with one copy of zod.
 */
const root = join(import.meta.dirname, '..', '..');
mkdirSync(join(root, 'cdk.out'), { recursive: true });
const dir = mkdtempSync(join(root, 'cdk.out', 'openapi-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ANSWER_ONE = `
const { handler } = await import(process.argv[1]);
const event = {
  resource: '/openapi.json', path: '/v1/openapi.json', httpMethod: 'GET', headers: {}, multiValueHeaders: {},
  queryStringParameters: null, multiValueQueryStringParameters: null, pathParameters: null,
  stageVariables: null, body: null, isBase64Encoded: false, requestContext: { requestId: 'req-bundle' },
};
const answer = await handler(event, { awsRequestId: 'req', functionName: 'public', getRemainingTimeInMillis: () => 1000 });
process.stdout.write(JSON.stringify(answer));
`;

describe('the public group as the stacks bundle it', () => {
  it('keeps the generator out of its bundle and answers the source document', {
    timeout: 60_000,
  }, async () => {
    const outfile = join(dir, 'index.mjs');
    const metafile = await buildGroupBundle(
      join(root, 'functions/api/public/index.ts'),
      outfile,
      LAZY_MODULES.public ?? [],
    );
    const inputs = Object.keys(metafile.inputs);
    expect(inputs).not.toContain('functions/shared/http/openapi.ts');
    expect(inputs).not.toContain('functions/shared/routes/route-table.ts');
    for (const command of lazyModuleCommands(LAZY_MODULES.public ?? [], dir, LAZY_MODULE_ALIASES))
      execSync(command, { stdio: 'pipe' });
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', ANSWER_ONE, outfile], {
      cwd: dir,
      encoding: 'utf8',
      // The answer is the whole document, escaped inside the proxy answer's JSON: over the 1 MiB default.
      maxBuffer: 16 * 1024 * 1024,
      env: {
        PATH: process.env.PATH ?? '',
        AWS_REGION: 'us-east-1',
        TABLE_NAME: 'unit',
        BUCKET_NAME: 'unit',
        POWERTOOLS_LOG_LEVEL: 'SILENT',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
    });
    const answer = JSON.parse(output.slice(output.indexOf('{"statusCode"'))) as {
      statusCode: number;
      body: string;
    };
    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.body)).toEqual(buildOpenApiDocument());
  });
});
