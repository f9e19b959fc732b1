import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../../functions/shared/observability/metric-names';

export interface Bundle {
  functionPath: string;
  /** The entry file `cdk deploy` uploads: minified ESM, its source map beside it and not counted. */
  file: string;
  bytes: number;
  /** The function's environment; values CloudFormation fills in at deploy time are placeholders. */
  environment: Record<string, string>;
}

interface CfnResource {
  Type: string;
  Metadata?: Record<string, string>;
  Properties?: { Environment?: { Variables?: Record<string, unknown> } };
}

/**
 * Synthesizes the CDK app and returns each Lambda's bundled entry file. The cloud assembly goes under the
 * git-ignored `cdk.out/` of the project, so a bundle resolves the AWS SDK it keeps external from the
 * project's `node_modules`, as it resolves the runtime's on Lambda. `cleanup` removes it.
 */
export const synthesizeBundles = (root: string): { bundles: Bundle[]; cleanup: () => void } => {
  mkdirSync(join(root, 'cdk.out'), { recursive: true });
  const out = mkdtempSync(join(root, 'cdk.out', 'bench-'));
  const cleanup = () => rmSync(out, { recursive: true, force: true });
  try {
    execFileSync('npx', ['cdk', 'synth', '--quiet', '--output', out], { cwd: root, stdio: 'pipe' });
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
      artifacts: Record<string, { type: string; properties?: { templateFile?: string } }>;
    };
    const bundles: Bundle[] = [];
    for (const artifact of Object.values(manifest.artifacts)) {
      const templateFile = artifact.properties?.templateFile;
      if (artifact.type !== 'aws:cloudformation:stack' || !templateFile) continue;
      const template = JSON.parse(readFileSync(join(out, templateFile), 'utf8')) as {
        Resources: Record<string, CfnResource>;
      };
      for (const resource of Object.values(template.Resources)) {
        const assetPath = resource.Metadata?.['aws:asset:path'];
        if (resource.Type !== 'AWS::Lambda::Function' || !assetPath) continue;
        const variables = resource.Properties?.Environment?.Variables ?? {};
        for (const name of ['index.mjs', 'index.js']) {
          const file = join(out, assetPath, name);
          try {
            bundles.push({
              functionPath: resource.Metadata?.['aws:cdk:path'] ?? assetPath,
              file,
              bytes: statSync(file).size,
              environment: Object.fromEntries(
                Object.entries(variables).map(([key, value]) => [
                  key,
                  typeof value === 'string' ? value : `bench-${key.toLowerCase()}`,
                ]),
              ),
            });
            break;
          } catch {
            // try the next entry name
          }
        }
      }
    }
    return { bundles: bundles.sort((a, b) => a.functionPath.localeCompare(b.functionPath)), cleanup };
  } catch (error) {
    cleanup();
    throw error;
  }
};

const importedModulesOf = (code: string): string[] => [
  ...new Set(
    [...code.matchAll(/(?:^|[;}\n])import\s*(?:[^"'`;]*?from\s*)?["']([^"'./][^"']*)["']/g)].map(
      (m) => m[1] ?? '',
    ),
  ),
];

/** The AWS SDK modules a bundle imports (it keeps `@aws-sdk/*` and `@smithy/*` external), from its import statements. */
export const sdkImportsOf = (code: string): string[] =>
  importedModulesOf(code).filter((name) => name.startsWith('@aws-sdk/') || name.startsWith('@smithy/'));

/** The Powertools modules a bundle imports (they come from the Powertools layer on AWS). */
export const powertoolsImportsOf = (code: string): string[] =>
  importedModulesOf(code).filter((name) => name.startsWith('@aws-lambda-powertools/'));

/** What the Lambda runtime sets that module-scope code may read; the rest comes from the function itself. */
const RUNTIME_ENVIRONMENT = {
  AWS_REGION: 'us-east-1',
  AWS_LAMBDA_FUNCTION_NAME: 'bench',
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
  // Node 22 on Lambda prints no SDK deprecation warning; Node 20 here would.
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

/**
 * Run in a fresh Node process: imports one file and prints how long the import took, in milliseconds of
 * wall-clock time and of CPU time (the latter moves less when other work shares the machine).
 */
const IMPORT_ONE = [
  "import { pathToFileURL } from 'node:url';",
  'const cpu = process.cpuUsage();',
  'const started = performance.now();',
  'await import(pathToFileURL(process.argv[1]).href);',
  'const wall = performance.now() - started;',
  'const { user, system } = process.cpuUsage(cpu);',
  "process.stdout.write(wall + ' ' + (user + system) / 1000);",
  'process.exit(0);',
].join('\n');

interface Sample {
  wallMs: number;
  cpuMs: number;
}

export const importOnce = (file: string, environment: Record<string, string>): Sample => {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', IMPORT_ONE, file], {
    env: { PATH: process.env.PATH ?? '', ...RUNTIME_ENVIRONMENT, ...environment },
    encoding: 'utf8',
  });
  const [wallMs, cpuMs] = result.stdout.split(' ').map(Number);
  if (result.status !== 0 || !Number.isFinite(wallMs) || !Number.isFinite(cpuMs)) {
    const reason = result.stderr.split('\n').find((line) => /Error/.test(line)) ?? result.stderr.trim();
    throw new Error(`importing ${file} failed: ${reason}`);
  }
  return { wallMs: wallMs ?? 0, cpuMs: cpuMs ?? 0 };
};

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

const medians = (samples: Sample[]): Sample => ({
  wallMs: median(samples.map((s) => s.wallMs)),
  cpuMs: median(samples.map((s) => s.cpuMs)),
});

export interface ImportTime {
  /** Medians of importing the bundle in a fresh Node process. */
  bundle: Sample;
  /** Medians of importing a bare handler that imports only the same AWS SDK modules. */
  bare: Sample;
  /** Medians of importing a bare handler that imports the same AWS SDK and Powertools modules. */
  bareWithPowertools: Sample;
  /**
   * Medians of importing a bare handler that imports the same modules and, at module scope as the SDK's and
   * Powertools' own examples do, builds what every function of ours builds there (`bareInitCode`).
   */
  bareWithInit: Sample;
  /**
   * Median over the rounds of the bundle's CPU time over each bare handler's in the same round: the three
   * imports of a round run back to back, so a change of the machine's load between rounds moves them together.
   */
  ratio: { bare: number; bareWithPowertools: number; bareWithInit: number };
  sdkModules: string[];
}

/**
 * The module-scope code of the third bare handler: the Powertools Logger, Metrics and Tracer, and the DynamoDB
 * document client, each built when the bundle imports its module, with the options `functions/shared/observability/`
 * and `data/client.ts` give them. A bundle's import beyond this handler's is its own code: route declarations,
 * middy, zod, the clients it builds at load besides DynamoDB's (none: they are built on first use).
 */
export const bareInitCode = (modules: readonly string[]): string => {
  const has = (module: string) => modules.includes(module);
  const lines: string[] = [];
  if (has('@aws-lambda-powertools/logger'))
    lines.push(
      "import { Logger } from '@aws-lambda-powertools/logger';",
      `export const logger = new Logger({ serviceName: '${SERVICE_NAME}' });`,
    );
  if (has('@aws-lambda-powertools/metrics'))
    lines.push(
      "import { Metrics } from '@aws-lambda-powertools/metrics';",
      `export const metrics = new Metrics({ namespace: '${METRICS_NAMESPACE}', serviceName: '${SERVICE_NAME}' });`,
    );
  if (has('@aws-lambda-powertools/tracer'))
    lines.push(
      "import { Tracer } from '@aws-lambda-powertools/tracer';",
      `export const tracer = new Tracer({ serviceName: '${SERVICE_NAME}', captureHTTPsRequests: false });`,
    );
  if (has('@aws-sdk/lib-dynamodb') && has('@aws-sdk/client-dynamodb'))
    lines.push(
      "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';",
      "import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';",
      'const client = new DynamoDBClient({ region: process.env.AWS_REGION });',
      `export const ddb = DynamoDBDocumentClient.from(${has('@aws-lambda-powertools/tracer') ? 'tracer.captureAWSv3Client(client)' : 'client'}, { marshallOptions: { removeUndefinedValues: true } });`,
    );
  return lines.join('\n');
};

/**
 * Cold-start cost of a bundle: the import of the bundle vs a bare handler beside it that imports only the
 * same AWS SDK modules, each in a fresh Node process with the function's environment (its `NODE_OPTIONS`
 * included), alternated so that both see the same machine load. One warm-up import each, then `runs` each.
 * The ratios are medians of each round's ratio, not ratios of the medians.
 */
export const measureImportTime = (bundle: Bundle, runs: number): ImportTime => {
  const code = readFileSync(bundle.file, 'utf8');
  const sdkModules = sdkImportsOf(code);
  const bareHandler = (name: string, modules: string[], init = '') => {
    const file = join(dirname(bundle.file), name);
    const imports = modules.map((module) => `import '${module}';`).join('\n');
    writeFileSync(file, `${imports}\n${init}\nexport const handler = async () => ({ statusCode: 204 });\n`);
    return file;
  };
  const withPowertools = [...sdkModules, ...powertoolsImportsOf(code)];
  const bare = bareHandler('bare-handler.mjs', sdkModules);
  const bareWithPowertools = bareHandler('bare-powertools-handler.mjs', withPowertools);
  const bareWithInit = bareHandler('bare-init-handler.mjs', withPowertools, bareInitCode(withPowertools));
  const samples: Record<'bundle' | 'bare' | 'bareWithPowertools' | 'bareWithInit', Sample[]> = {
    bundle: [],
    bare: [],
    bareWithPowertools: [],
    bareWithInit: [],
  };
  for (let i = 0; i <= runs; i++) {
    const round = {
      bundle: importOnce(bundle.file, bundle.environment),
      bare: importOnce(bare, bundle.environment),
      bareWithPowertools: importOnce(bareWithPowertools, bundle.environment),
      bareWithInit: importOnce(bareWithInit, bundle.environment),
    };
    if (i === 0) continue; // warm-up: file system caches
    for (const key of Object.keys(samples) as (keyof typeof samples)[]) samples[key].push(round[key]);
  }
  const roundRatios = (bare: Sample[]) =>
    median(samples.bundle.map((s, i) => s.cpuMs / (bare[i]?.cpuMs ?? 1)));
  return {
    bundle: medians(samples.bundle),
    bare: medians(samples.bare),
    bareWithPowertools: medians(samples.bareWithPowertools),
    bareWithInit: medians(samples.bareWithInit),
    ratio: {
      bare: roundRatios(samples.bare),
      bareWithPowertools: roundRatios(samples.bareWithPowertools),
      bareWithInit: roundRatios(samples.bareWithInit),
    },
    sdkModules,
  };
};
