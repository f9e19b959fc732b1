import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiUrl, call, createTenant } from '../../../test/integration/support';
import { eventually } from '../../../test/integration/webhook-receiver';

/**
 * The package as an integrator gets it: `npm pack` of the built SDK (`npm run sdk:build`, which the root
 * `npm test` runs first), installed with `npm install <tarball>` into a temporary project outside the
 * repository, then run against the local stack from an ES module (`import`) and from a CommonJS module
 * (`require`), and type-checked from a `.mts` and a `.cts` file. Nothing of the repository is on the
 * project's module path: what runs is what the tarball holds, with its dependencies as npm installs them.
 */
const run = promisify(execFile);
const sdk = join(import.meta.dirname, '..', '..');
const root = join(sdk, '..');
const name = '@messaging-dynadata-api/sdk';

/** The environment of the npm and node processes: without the variables of an enclosing `npm test`. */
const env = Object.fromEntries(
  Object.entries(process.env).filter(
    ([key]) =>
      !/^npm_(lifecycle|package)_/i.test(key) &&
      !/^npm_config_(local_prefix|prefix|global_prefix)$/i.test(key) &&
      key !== 'INIT_CWD' &&
      key !== 'NODE_OPTIONS',
  ),
);

let project: string;
let tenant: Awaited<ReturnType<typeof createTenant>>;

/** The same scenario in both module systems: `SDK` is `import * as SDK` or `require(...)`. */
const scenario = (format: string) => `
const api = SDK.createApiClient({ baseUrl: process.env.API_URL, credential: { apiKey: process.env.API_KEY } });
const self = await api.GET('/v1/self');
const created = await api.POST('/v1/dynadata/type/{type}/create', {
  params: { path: { type: 'contacts' } },
  body: { name: 'From ${format}' },
});
const found = [];
for await (const item of api.paginate('listDynadataItems', { path: { type: 'contacts' }, body: { limit: 1 } })) {
  if (item.name === 'From ${format}') found.push(item._id);
}
process.stdout.write(JSON.stringify({
  companyId: self.data?.company.id,
  created: created.response.status,
  createdId: created.data?._id,
  found,
  userAgent: SDK.USER_AGENT,
  timeoutError: typeof SDK.RequestTimeoutError,
  verifyWebhook: typeof SDK.verifyWebhook,
}));
`;

beforeAll(async () => {
  tenant = await createTenant();
  project = mkdtempSync(join(tmpdir(), 'sdk-package-'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'sdk-consumer', private: true }));
  // The built package as it is (the build itself is `npm run sdk:build`; `npm pack` alone would rebuild it
  // through `prepack` under the feet of the other tests that read sdk/dist).
  if (!existsSync(join(sdk, 'dist', 'cjs', 'index.js'))) throw new Error('run npm run sdk:build first');
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', project], {
    cwd: sdk,
    env,
  });
  const [tarball] = JSON.parse(packed.stdout) as { filename: string }[];
  await run(
    'npm',
    [
      'install',
      join(project, tarball?.filename ?? ''),
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
    ],
    { cwd: project, env },
  );
}, 120_000);

afterAll(() => {
  if (project !== undefined) rmSync(project, { recursive: true, force: true });
});

const runScenario = async (file: string) => {
  const { stdout } = await run(process.execPath, [file], {
    cwd: project,
    env: { ...env, API_URL: apiUrl, API_KEY: tenant.apiKey },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
};

describe('the packed SDK installed outside the repository', () => {
  it('installs with its runtime dependencies and nothing of the repository', async () => {
    const { stdout } = await run('npm', ['ls', '--all', '--json'], { cwd: project, env });
    const tree = JSON.parse(stdout) as { dependencies: Record<string, { dependencies?: object }> };
    expect(Object.keys(tree.dependencies)).toEqual([name]);
    expect(Object.keys(tree.dependencies[name]?.dependencies ?? {}).sort()).toEqual([
      'openapi-fetch',
      'standardwebhooks',
    ]);
  });

  it('runs against the local stack from an ES module (import) and a CommonJS module (require)', async () => {
    writeFileSync(join(project, 'scenario.mjs'), `import * as SDK from '${name}';\n${scenario('ESM')}`);
    writeFileSync(
      join(project, 'scenario.cjs'),
      `const SDK = require('${name}');\n(async () => {${scenario('CJS')}})().catch((error) => {\n` +
        '  console.error(error);\n  process.exitCode = 1;\n});\n',
    );
    const { version } = JSON.parse(readFileSync(join(sdk, 'package.json'), 'utf8')) as { version: string };
    const agent = `messaging-dynadata-api-sdk/${version} node/${process.versions.node}`;
    for (const file of ['scenario.mjs', 'scenario.cjs']) {
      const result = await runScenario(file);
      expect(result, file).toMatchObject({
        companyId: tenant.companyId,
        created: 201,
        userAgent: agent,
        timeoutError: 'function',
        verifyWebhook: 'function',
      });
      expect(result.found, file).toEqual([result.createdId]);
    }
    // The audit trail records the SDK's User-Agent with each of its requests.
    const created = (items: unknown): unknown[] =>
      (items as { path: string; status: number; userAgent: string | null }[])
        .filter((entry) => entry.path === '/v1/dynadata/type/contacts/create' && entry.status === 201)
        .map((entry) => entry.userAgent);
    const audit = await eventually(
      () =>
        call('POST', '/v1/dynadata/type/log_entries/list', {
          headers: { 'x-api-key': tenant.apiKey },
          body: { limit: 100 },
        }),
      (listed) => created(listed.json.items).length >= 2,
    );
    expect(created(audit.json.items)).toEqual(Array(2).fill(agent));
  });

  it('type-checks from a .mts and a .cts file, each through its own declarations', async () => {
    const body = [
      'const api = createApiClient({ baseUrl: "http://127.0.0.1:1", timeoutMs: 1000 });',
      'export const name = async (): Promise<string | undefined> => (await api.GET("/v1/self")).data?.company.name;',
      'export const item = (i: DynadataItem): string => i._id;',
      '// @ts-expect-error: a company name is a string',
      'export const wrong = async (): Promise<number | undefined> => (await api.GET("/v1/self")).data?.company.name;',
      '',
    ].join('\n');
    const imports = `import { createApiClient, type DynadataItem } from '${name}';\n`;
    writeFileSync(join(project, 'consumer.mts'), imports + body);
    writeFileSync(join(project, 'consumer.cts'), imports + body);
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const types = ['--types', 'node', '--typeRoots', join(root, 'node_modules', '@types')];
    // `nodenext` and `node16` (which refuses a CommonJS declaration importing an ES module one), side by side.
    const check = async (module: string) => {
      const args = ['--ignoreConfig', '--noEmit', '--strict', '--module', module, '--target', 'es2022'];
      // Rejects with the compiler's messages on any type error, an unused @ts-expect-error included.
      const { stdout } = await run(
        process.execPath,
        [tsc, ...args, ...types, '--listFiles', 'consumer.mts', 'consumer.cts'],
        { cwd: project, env, maxBuffer: 16 * 1024 * 1024 },
      );
      return stdout
        .split('\n')
        .filter((file) => file.includes(`node_modules/${name}/dist/`) && file.endsWith('/index.d.ts'))
        .map((file) => file.slice(file.indexOf('/dist/')))
        .sort();
    };
    const entries = ['/dist/cjs/index.d.ts', '/dist/index.d.ts'];
    expect(await Promise.all([check('nodenext'), check('node16')])).toEqual([entries, entries]);
  });
});
