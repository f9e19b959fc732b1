import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importOnce } from './bundles';

/**
 * `npm run bench -- tracing`: what tracing costs a cold start, and what the ways of paying less would cost,
 * measured in one run (`docs/decisions/0007-tracing-cost.md` records the figures and the decision).
 *
 * Each way is a module doing what a route group does at init with it: import the DynamoDB client and
 * Powertools Logger and Metrics, build them, and build the tracing. Each is imported in a fresh Node process
 * with Lambda's environment (tracing active), the ways alternated round by round so that all see the same
 * machine load; medians of `BENCH_IMPORT_RUNS` (default 7) after one warm-up round:
 * - `no tracing`: the floor, what any deferred tracing pays at init;
 * - `Tracer at init`: the Powertools Tracer built at module scope, the client wrapped (what the code does);
 * - `Tracer on first use`: the floor at init; what the first invocation that needs the Tracer then pays to
 *   import and build it is timed in a process of its own, after the floor's import;
 * - `X-Ray SDK only`: the X-Ray SDK the Tracer wraps, used directly (no Powertools Tracer);
 * - `OpenTelemetry`: the OpenTelemetry API and trace SDK with the X-Ray id generator and propagator and the
 *   OTLP exporter (what the ADOT collector receives). These packages are not dependencies of the project: the
 *   way is measured only when `BENCH_OTEL_DIR` names a directory where they are installed
 *   (`npm install @opentelemetry/api @opentelemetry/sdk-trace-base @opentelemetry/exporter-trace-otlp-http
 *   @opentelemetry/id-generator-aws-xray @opentelemetry/propagator-aws-xray @opentelemetry/resources`).
 */

const LAMBDA_ENVIRONMENT = {
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
  AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:2000',
  AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
  POWERTOOLS_SERVICE_NAME: 'bench',
  POWERTOOLS_METRICS_NAMESPACE: 'Bench',
};

/** Specifiers resolved from the project, so that a way written elsewhere (OpenTelemetry's) loads the same files. */
const resolved = (specifier: string): string => import.meta.resolve(specifier);

const FLOOR = `
import { DynamoDBClient } from '${resolved('@aws-sdk/client-dynamodb')}';
import { DynamoDBDocumentClient } from '${resolved('@aws-sdk/lib-dynamodb')}';
import { Logger } from '${resolved('@aws-lambda-powertools/logger')}';
import '${resolved('@aws-lambda-powertools/logger/middleware')}';
import { Metrics } from '${resolved('@aws-lambda-powertools/metrics')}';
import '${resolved('@aws-lambda-powertools/metrics/middleware')}';
export const logger = new Logger({ serviceName: 'bench' });
export const metrics = new Metrics({ namespace: 'Bench', serviceName: 'bench' });
`;

const client = (wrap: string) =>
  `export const ddb = DynamoDBDocumentClient.from(${wrap}(new DynamoDBClient({ region: 'us-east-1' })));\n`;

const TRACER = `
import { Tracer } from '${resolved('@aws-lambda-powertools/tracer')}';
import '${resolved('@aws-lambda-powertools/tracer/middleware')}';
const tracer = new Tracer({ serviceName: 'bench', captureHTTPsRequests: false });
`;

/** After the floor: the Tracer as a first invocation would load it; prints what that load took (CPU ms). */
const ON_FIRST_USE = `
const cpu = process.cpuUsage();
const { Tracer } = await import('${resolved('@aws-lambda-powertools/tracer')}');
await import('${resolved('@aws-lambda-powertools/tracer/middleware')}');
const tracer = new Tracer({ serviceName: 'bench', captureHTTPsRequests: false });
tracer.captureAWSv3Client(new DynamoDBClient({ region: 'us-east-1' }));
const { user, system } = process.cpuUsage(cpu);
process.stdout.write(\`first-use \${(user + system) / 1000}\\n\`);
`;

const XRAY_SDK = `
import AWSXRay from '${resolved('aws-xray-sdk-core')}';
`;

/** Written into `BENCH_OTEL_DIR`, so that its packages resolve from there (the rest from the project). */
const OPEN_TELEMETRY = `
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { AWSXRayIdGenerator } from '@opentelemetry/id-generator-aws-xray';
import { AWSXRayPropagator } from '@opentelemetry/propagator-aws-xray';
const provider = new BasicTracerProvider({
  idGenerator: new AWSXRayIdGenerator(),
  spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: 'http://127.0.0.1:4318/v1/traces' }))],
});
trace.setGlobalTracerProvider(provider);
export const propagator = new AWSXRayPropagator();
export const tracer = trace.getTracer('bench');
`;

interface Way {
  name: string;
  code: string;
  /** Where the way's module is written (the bench's own directory by default). */
  dir?: string;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

export const benchTracing = (root: string, runs: number): void => {
  mkdirSync(join(root, 'cdk.out'), { recursive: true });
  const dir = mkdtempSync(join(root, 'cdk.out', 'bench-tracing-'));
  const otelDir = process.env.BENCH_OTEL_DIR;
  try {
    const ways: Way[] = [
      { name: 'no tracing (floor, Tracer on first use)', code: FLOOR + client('') },
      { name: 'Tracer at init (today)', code: FLOOR + TRACER + client('tracer.captureAWSv3Client') },
      { name: 'X-Ray SDK only, at init', code: FLOOR + XRAY_SDK + client('AWSXRay.captureAWSv3Client') },
      ...(otelDir
        ? [{ name: 'OpenTelemetry at init', code: FLOOR + OPEN_TELEMETRY + client(''), dir: otelDir }]
        : []),
    ];
    const files = ways.map((way, i) => {
      const file = join(way.dir ?? dir, `bench-tracing-way-${i}.mjs`);
      writeFileSync(file, way.code);
      return file;
    });
    const firstUseFile = join(dir, 'first-use.mjs');
    writeFileSync(firstUseFile, FLOOR + client('') + ON_FIRST_USE);
    const samples = ways.map(() => [] as number[]);
    const firstUse: number[] = [];
    for (let round = 0; round <= runs; round++) {
      files.forEach((file, i) => {
        const { cpuMs } = importOnce(file, { AWS_REGION: 'us-east-1', ...LAMBDA_ENVIRONMENT });
        if (round > 0) samples[i]?.push(cpuMs);
      });
      const deferred = firstUseOf(firstUseFile);
      if (round > 0) firstUse.push(deferred);
    }
    const floor = median(samples[0] ?? []);
    process.stdout.write(
      `${'way'.padEnd(36)} ${'init CPU ms'.padStart(11)} ${'x floor'.padStart(8)}  (median of ${runs}, Lambda environment, tracing active)\n`,
    );
    ways.forEach((way, i) => {
      const ms = median(samples[i] ?? []);
      process.stdout.write(
        `${way.name.padEnd(36)} ${ms.toFixed(1).padStart(11)} ${(ms / floor).toFixed(2).padStart(8)}\n`,
      );
    });
    process.stdout.write(
      `${'Tracer on first use: the first use'.padEnd(36)} ${median(firstUse).toFixed(1).padStart(11)}  (CPU ms the first traced invocation pays)\n`,
    );
    if (!otelDir)
      process.stdout.write('OpenTelemetry not measured: set BENCH_OTEL_DIR (see test/bench/tracing.ts)\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (otelDir) rmSync(join(otelDir, `bench-tracing-way-3.mjs`), { force: true });
  }
};

/** Runs the first-use script and reads the CPU time its deferred Tracer load took. */
const firstUseOf = (file: string): number => {
  const { stdout } = spawnSync(process.execPath, [file], {
    env: { PATH: process.env.PATH ?? '', AWS_REGION: 'us-east-1', ...LAMBDA_ENVIRONMENT },
    encoding: 'utf8',
  });
  const match = /first-use ([\d.]+)/.exec(stdout);
  return match ? Number(match[1]) : Number.NaN;
};
