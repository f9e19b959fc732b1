import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Duration, type Size, Stack, Validations } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  ApplicationLogLevel,
  Architecture,
  type ILayerVersion,
  LayerVersion,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../../functions/shared/observability/metric-names';
import {
  type DataResources,
  dataEnvironment,
  type FunctionAccess,
  grantDataAccess,
} from '../grants/function-access';

/** Repository root: entries, the lockfile and node_modules are resolved from here. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Gives CommonJS dependencies a `require` inside the ESM bundle. */
const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

export interface AppFunctionProps {
  /** Entry file relative to the repository root; it exports `handler`. */
  entry: string;
  description: string;
  /**
   * Everything the function may do (its entry in `lib/access.ts`): granted to its role, with the names and
   * ARNs of those resources in its environment.
   */
  access: FunctionAccess;
  data: DataResources;
  /** Variables beyond those `access` implies. */
  environment?: Record<string, string>;
  memorySize?: number;
  /**
   * Large modules the function imports with `import()` on first use: each is left out of the bundle and built
   * into a file of its own in the asset's `node_modules`, so the bundle (and its cold start) does not carry it.
   */
  lazyModules?: readonly string[];
  /**
   * Files of an npm package the function reads at run time (not imports): copied into the asset's
   * `node_modules/<package>/`, where `createRequire(import.meta.url).resolve('<package>/…')` finds them.
   */
  packageFiles?: { package: string; files: readonly string[] };
  /**
   * esbuild aliases of a lazy module, by its specifier: module specifiers it is built with from another file
   * (relative to the repository root).
   */
  lazyModuleAliases?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  timeout?: Duration;
  /** arm64 unless the function runs a binary of another architecture (the ffmpeg function: x86_64). */
  architecture?: Architecture;
  /** Layers beyond the Powertools layer (the ffmpeg binary's). */
  layers?: readonly ILayerVersion[];
  /** `/tmp` beyond Lambda's 512 MB (the ffmpeg function keeps a source and its output there). */
  ephemeralStorageSize?: Size;
}

/**
 * Modules the Lambda environment provides instead of the bundle:
 * - the AWS SDK v3 (`@aws-sdk/*` and its `@smithy/*` core), shipped by the nodejs22.x runtime: it is most of
 *   a bundle (about 350 KB minified for DynamoDB and Secrets Manager alone). The code uses only long-stable
 *   SDK v3 operations; the pinned SDK in package.json is what tests run against.
 * - Powertools for AWS Lambda (`@aws-lambda-powertools/*`, with the X-Ray SDK its Tracer needs, about 130 KB
 *   minified), from AWS's own Powertools layer at exactly the version package.json pins (`POWERTOOLS_VERSION`),
 *   which is the way Powertools documents to keep it out of every function's package. The nodejs22.x runtime
 *   resolves ES module imports from layers (it searches `NODE_PATH`, which includes `/opt/nodejs/node_modules`).
 * The budgets (150 KB for the authorizer, 300 KB for a route group) are for what each function carries itself;
 * `npm run bench` measures import time with these modules loaded.
 */
export const RUNTIME_PROVIDED_MODULES = ['@aws-sdk/*', '@smithy/*', '@aws-lambda-powertools/*'];

/** The Powertools version the code is built and tested with (all its packages are pinned to it). */
export const POWERTOOLS_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    dependencies: Record<string, string>;
  }
).dependencies['@aws-lambda-powertools/logger'] as string;

/** AWS publishes the ARN of each region's Powertools layer of a version in this public SSM parameter. */
export const powertoolsLayerParameter = (version: string) =>
  `/aws/service/powertools/typescript/generic/all/${version}`;

/** One Powertools layer reference per stack, resolved at deploy time for the stack's region. */
const powertoolsLayer = (scope: Construct): ILayerVersion => {
  const stack = Stack.of(scope);
  const existing = stack.node.tryFindChild('PowertoolsLayer') as ILayerVersion | undefined;
  return (
    existing ??
    LayerVersion.fromLayerVersionArn(
      stack,
      'PowertoolsLayer',
      StringParameter.valueForStringParameter(stack, powertoolsLayerParameter(POWERTOOLS_VERSION)),
    )
  );
};

/**
 * Shell commands that build each lazy module beside the bundle, resolvable by the specifier the code imports:
 * - a package subpath (`package/sub/path`) into `node_modules/package/sub/path.mjs` of the asset, with a
 *   `package.json` whose `exports` map the specifier to it;
 * - a module of the project (`#lazy/<name>`, mapped to its source by the `imports` of the project's
 *   `package.json`, which is how tsx and the tests resolve it) into `lazy/<name>.mjs`, with a `package.json`
 *   at the asset's root whose `imports` map the specifier to it (Node resolves `#` specifiers from the
 *   nearest `package.json` of the importing file, here the bundle's).
 * Each is bundled on its own (its dependencies inlined, its `aliases` applied), so it must share no module
 * state with the bundle.
 */
export const lazyModuleCommands = (
  modules: readonly string[],
  output: string,
  aliases: AppFunctionProps['lazyModuleAliases'] = {},
): string[] => {
  const byPackage = new Map<string, Record<string, string>>();
  const projectImports: Record<string, string> = {};
  const commands: string[] = [];
  const writeJson = (file: string, value: unknown) =>
    `node -e 'require("fs").writeFileSync(process.argv[1], process.argv[2])' "${file}" '${JSON.stringify(value)}'`;
  for (const specifier of modules) {
    const source = fileURLToPath(import.meta.resolve(specifier));
    let target: string;
    if (specifier.startsWith('#')) {
      const file = `./lazy/${specifier.split('/').slice(1).join('/')}.mjs`;
      projectImports[specifier] = file;
      target = `${output}/${file.slice(2)}`;
    } else {
      const [name, ...rest] = specifier.split('/');
      const sub = rest.join('/');
      target = `${output}/node_modules/${name}/${sub}.mjs`;
      byPackage.set(name as string, { ...byPackage.get(name as string), [`./${sub}`]: `./${sub}.mjs` });
    }
    commands.push(
      `"${PROJECT_ROOT}node_modules/.bin/esbuild" "${source}" --bundle --platform=node --format=esm ` +
        `--minify --target=node22 --log-level=error --outfile="${target}"` +
        Object.entries(aliases[specifier] ?? {})
          .map(([from, to]) => ` --alias:${from}="${PROJECT_ROOT}${to}"`)
          .join(''),
    );
  }
  for (const [name, exports] of byPackage)
    commands.push(
      writeJson(`${output}/node_modules/${name}/package.json`, { name, type: 'module', exports }),
    );
  if (Object.keys(projectImports).length > 0)
    commands.push(writeJson(`${output}/package.json`, { imports: projectImports }));
  return commands;
};

/**
 * CDK context key that turns on Node's source-mapped stack traces in every function (`cdk deploy -c
 * sourceMaps=true`). Off by default: with `--enable-source-maps` Node reads and parses a bundle's source map
 * when it loads the bundle, on every cold start, and maps every stack it formats. Each asset carries its map
 * either way (`index.mjs.map`, positions only), so switching it on is a configuration change, not a rebuild
 * (`docs/decisions/` has the measurement and the decision).
 */
export const SOURCE_MAPS_CONTEXT = 'sourceMaps';

/** The `NODE_OPTIONS` of a function: source-mapped stack traces only when the context asks for them. */
export const nodeOptionsOf = (scope: Construct): Record<string, string> => {
  const value: unknown = scope.node.tryGetContext(SOURCE_MAPS_CONTEXT);
  return value === true || value === 'true' ? { NODE_OPTIONS: '--enable-source-maps' } : {};
};

/**
 * The level of the functions' own log lines Lambda sends on (advanced logging controls, JSON log format): the
 * one place it is set. Lambda hands it to the function as `AWS_LAMBDA_LOG_LEVEL`, which the Powertools Logger
 * takes before any level of its own, so the logger and Lambda's filter always agree. An EMF metric line has no
 * `level` and counts as INFO: it is sent at this level.
 */
export const APPLICATION_LOG_LEVEL = ApplicationLogLevel.INFO;

/**
 * CDK context key that sets Lambda's system log level of every function (`cdk deploy -c
 * lambdaSystemLogLevel=INFO`). WARN by default: Lambda then writes none of its per-invocation platform lines
 * (START, END, REPORT), only its warnings; INFO brings them back (duration, billed duration, memory used, init
 * duration per invocation), DEBUG adds extension and telemetry events. A configuration change, no rebuild.
 */
export const SYSTEM_LOG_LEVEL_CONTEXT = 'lambdaSystemLogLevel';

/** The system log level of a function: WARN unless the context names another. */
export const systemLogLevelOf = (scope: Construct): SystemLogLevel => {
  const value: unknown = scope.node.tryGetContext(SYSTEM_LOG_LEVEL_CONTEXT);
  if (value === undefined) return SystemLogLevel.WARN;
  const level = Object.values(SystemLogLevel).find((l) => l === String(value).toUpperCase());
  if (!level)
    throw new Error(
      `context ${SYSTEM_LOG_LEVEL_CONTEXT} is ${String(value)}: one of ${Object.values(SystemLogLevel).join(', ')}`,
    );
  return level;
};

/** Shell commands that copy `files` of an installed package into the asset's `node_modules/<package>/`. */
export const packageFileCommands = (
  packageFiles: AppFunctionProps['packageFiles'],
  output: string,
): string[] => {
  if (!packageFiles) return [];
  const source = `${PROJECT_ROOT}node_modules/${packageFiles.package}`;
  const target = `${output}/node_modules/${packageFiles.package}`;
  return [
    `mkdir -p "${target}"`,
    ...['package.json', ...packageFiles.files].map((file) => `cp "${source}/${file}" "${target}/${file}"`),
  ];
};

/**
 * One Lambda function of the API: nodejs22.x on arm64 (x86_64 where `architecture` says so), active X-Ray tracing (the role gets
 * `xray:PutTraceSegments` and `xray:PutTelemetryRecords` with it), one minified, tree-shaken ESM file
 * (everything but the runtime's AWS SDK and the Powertools layer, see `RUNTIME_PROVIDED_MODULES`), an
 * explicit log group kept for a month, JSON logs filtered by level (`APPLICATION_LOG_LEVEL`; Lambda's platform
 * lines only when `SYSTEM_LOG_LEVEL_CONTEXT` asks for them), and a role of its own that may write only to that log group (no AWSLambdaBasicExecutionRole).
 * The log group and the role are siblings named `<id>Logs` and `<id>Role`: they must exist before the
 * function, so they cannot be its children.
 */
export class AppFunction extends NodejsFunction {
  /** What the function may do (`test/infra/bundle-grants.test.ts` compares it with the bundle's calls). */
  readonly access: FunctionAccess;

  constructor(scope: Construct, id: string, props: AppFunctionProps) {
    const logGroup = new LogGroup(scope, `${id}Logs`, { retention: RetentionDays.ONE_MONTH });
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: props.description,
    });
    logGroup.grantWrite(role);
    super(scope, id, {
      entry: `${PROJECT_ROOT}${props.entry}`,
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: props.architecture ?? Architecture.ARM_64,
      tracing: Tracing.ACTIVE,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      ...(props.ephemeralStorageSize ? { ephemeralStorageSize: props.ephemeralStorageSize } : {}),
      role,
      logGroup,
      // JSON log format: Lambda filters by level. The Powertools lines (Logger, Metrics) are written to stdout
      // as JSON already and pass as they are; the system level drops the platform lines unless asked for.
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: APPLICATION_LOG_LEVEL,
      systemLogLevelV2: systemLogLevelOf(scope),
      layers: [powertoolsLayer(scope), ...(props.layers ?? [])],
      environment: {
        ...dataEnvironment(props.access, props.data),
        ...props.environment,
        ...nodeOptionsOf(scope),
        // The names `functions/shared/observability/` also sets: Powertools utilities agree wherever they are built.
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      },
      bundling: {
        format: OutputFormat.ESM,
        target: 'node22',
        mainFields: ['module', 'main'],
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        banner: ESM_REQUIRE_BANNER,
        externalModules: [...RUNTIME_PROVIDED_MODULES, ...(props.lazyModules ?? [])],
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (_input: string, output: string) => [
            ...lazyModuleCommands(props.lazyModules ?? [], output, props.lazyModuleAliases),
            ...packageFileCommands(props.packageFiles, output),
          ],
        },
        metafile: false,
        logLevel: LogLevel.ERROR,
      },
    });
    this.access = props.access;
    grantDataAccess(role, props.access, props.data);
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'nodejs22.x is the runtime the architecture pins (the code is built and tested for it); moving to a ' +
        'newer Node.js major is a deliberate upgrade, not an automatic one.',
    });
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level ' +
        'permissions, so "*" is their only valid resource. The role\'s other statements name exact ARNs, ' +
        'apart from the unscoped actions its access declares (acknowledged with their own reason).',
    });
  }
}
