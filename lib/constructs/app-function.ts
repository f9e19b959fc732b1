import { fileURLToPath } from 'node:url';
import { Duration, Validations } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../../functions/shared/metric-names';

/** Repository root: entries, the lockfile and node_modules are resolved from here. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Gives CommonJS dependencies a `require` inside the ESM bundle. */
const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

export interface AppFunctionProps {
  /** Entry file relative to the repository root; it exports `handler`. */
  entry: string;
  description: string;
  environment: Record<string, string>;
  memorySize?: number;
  timeout?: Duration;
}

/**
 * The AWS SDK v3 (`@aws-sdk/*` and its `@smithy/*` core) is taken from the Lambda runtime, which ships it
 * with nodejs22.x, instead of being bundled: it is most of a bundle (about 350 KB minified for DynamoDB and
 * Secrets Manager alone), and the budgets are 150 KB for the authorizer and 300 KB for a route group. The
 * code uses only long-stable SDK v3 operations; the pinned SDK in package.json is what tests run against.
 */
export const RUNTIME_PROVIDED_MODULES = ['@aws-sdk/*', '@smithy/*'];

/**
 * One Lambda function of the API: nodejs22.x on arm64, active X-Ray tracing (the role gets
 * `xray:PutTraceSegments` and `xray:PutTelemetryRecords` with it), one minified, tree-shaken ESM file
 * (everything but the runtime's AWS SDK, see `RUNTIME_PROVIDED_MODULES`), an explicit log group kept for a
 * month, and a role of its own that may write only to that log group (no AWSLambdaBasicExecutionRole).
 * The log group and the role are siblings named `<id>Logs` and `<id>Role`: they must exist before the
 * function, so they cannot be its children.
 */
export class AppFunction extends NodejsFunction {
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
      architecture: Architecture.ARM_64,
      tracing: Tracing.ACTIVE,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      role,
      logGroup,
      environment: {
        ...props.environment,
        NODE_OPTIONS: '--enable-source-maps',
        // The names `functions/shared/logger.ts` also sets: Powertools utilities agree wherever they are built.
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
        externalModules: RUNTIME_PROVIDED_MODULES,
        metafile: false,
        logLevel: LogLevel.ERROR,
      },
    });
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
        'permissions, so "*" is their only valid resource. Every other statement of this role names exact ARNs.',
    });
  }
}
