import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AccessLogRecord } from '../shared/http/access-log';
import { ROUTE_GROUPS, type RouteGroup } from '../shared/routes/route-table';
import {
  QUEUE_NAMES,
  queueUrlVariable,
  WEBHOOK_DELIVERY_MAX_RECEIVES,
  WORKFLOW_RUN_MAX_RECEIVES,
} from '../shared/types/queues';
import { stateMachineArnVariable } from '../shared/types/state-machines';
import {
  ensureCursorKey,
  ensureJwtKeys,
  ensureS3Credentials,
  ensureWorkflowSecretsKey,
  jwtKeysFile,
  jwtPublicKeysFile,
} from './data-dir-secrets';
import { type RunningService, startDynamoDbLocal } from './dynamodb-local';
import type { ProxyHandler } from './gateway';
import { openGatewayServer } from './gateway-server';
import { createLogBatcher } from './log-batcher';
import { ensureBucket, ensureTable } from './provision';
import { type LocalQueueDefinition, type QueueBatchEvent, startLocalQueues } from './queues';
import { startS3Local } from './s3-local';
import { startLocalScheduler } from './scheduler';
import { writeFileAtomically } from './state-file';
import { type ExecutionEvent, startStepFunctionsEmulator } from './step-functions/emulator';
import { aslFiles, LOCAL_ACCOUNT, loadLocalStateMachines } from './step-functions/machines';

/**
 * The local stack: DynamoDB Local and s3rver with data on disk under `dataDir`, the table and bucket, seed
 * data, and the gateway emulator in front of the real handlers. This folder is the only code that knows it
 * is not running on AWS.
 *
 * Outbound requests made for tenants (webhooks, workflow HTTP actions) reach public addresses only, as on
 * AWS, unless the stack is started with `allowLoopbackOutbound` (`npm start -- --allow-loopback-outbound`,
 * for receivers running on this machine). Even then the ports of the stack's own services (every endpoint
 * of the stack description and any server behind one) are refused: they are the platform's control plane,
 * open to anyone who reaches them.
 */
export interface LocalStackOptions {
  dataDir: string;
  port?: number;
  /** Outbound requests may reach loopback addresses, except the stack's own ports; default false. */
  allowLoopbackOutbound?: boolean;
  tableName?: string;
  bucketName?: string;
  onAccessLog?: (record: AccessLogRecord) => void;
  /** Feed the log shipper (log_entries, compute meter) as on AWS; default true. */
  shipLogs?: boolean;
  /** Webhook retry and disable windows; each defaults to `LOCAL_WEBHOOK_TIMING`'s. */
  webhooks?: Partial<WebhookTiming>;
  /** Told of each Step Functions execution that ended, with its state transitions and Task run times. */
  onExecutionEnd?: (event: ExecutionEvent) => void;
  /** Told of each batch a local queue handed its worker, with its run time. */
  onQueueBatch?: (event: QueueBatchEvent) => void;
  /** Write the EMF metric lines as on AWS (on stdout); default false. A measurement hook (the cost bench). */
  emfMetrics?: boolean;
  /**
   * Runs each off-path batch (the log shipper's batch of access-log records, the event dispatcher's batch of
   * stream records) inside `run`: a measurement hook (the cost bench times and attributes them); default,
   * `run()` alone.
   */
  aroundBatch?: <T>(
    kind: 'log-shipper' | 'event-dispatcher',
    records: unknown[],
    run: () => Promise<T>,
  ) => Promise<T>;
  /** Told what start-up recovery resumed or settled, by kind of work. */
  onRecovered?: (counts: Record<string, Record<string, number>>) => void;
  /** Every workflow schedule is due this often (ms) instead of by its expression (`--schedule-every`). */
  scheduleEveryMs?: number;
}

/** How webhook deliveries retry and when a failing endpoint is disabled, in seconds. */
export interface WebhookTiming {
  retryBaseSeconds: number;
  retryCapSeconds: number;
  retryWindowSeconds: number;
  disableAfterSeconds: number;
}

/**
 * Local webhook timing: retries within seconds, an endpoint disabled after two minutes of being tried and
 * failing. A stop of the stack counts at most one retry interval (the cap plus one attempt's 10 s) towards
 * that, so a restart does not disable an endpoint that was mid-delivery.
 */
export const LOCAL_WEBHOOK_TIMING: WebhookTiming = {
  retryBaseSeconds: 1,
  retryCapSeconds: 5,
  retryWindowSeconds: 600,
  disableAfterSeconds: 120,
};

export interface StackDescription {
  apiUrl: string;
  dynamodbEndpoint: string;
  s3Endpoint: string;
  /** The Step Functions emulator running `statemachines/*.asl.json`, and the ARN of each machine. */
  stepFunctionsEndpoint: string;
  stateMachineArns: Record<string, string>;
  /** The local SQS endpoint (`queues.ts`), and the URL of each queue. */
  queueEndpoint: string;
  queueUrls: Record<string, string>;
  /** The local EventBridge Scheduler (`scheduler.ts`); absent in stack files written before it. */
  schedulerEndpoint?: string;
  tableName: string;
  bucketName: string;
  region: string;
  /** What outbound requests of tenants may reach besides public addresses (`env().outbound`). */
  outbound: { allowLoopback: boolean; deniedLoopbackPorts: number[] };
  /** Webhook retry and disable windows (`npm start` options). */
  webhooks: WebhookTiming;
  dataDir: string;
  pid: number;
  startedAt: string;
}

export interface LocalStack {
  description: StackDescription;
  demo: { companyId: string; apiKey: string; created: boolean };
  stop: () => Promise<void>;
}

export const REGION = 'us-east-1';
/** The ARN the local scheduler maps to the schedule target (`functions/workers/workflow-schedule`). */
const LOCAL_SCHEDULE_TARGET = `arn:aws:lambda:${REGION}:${LOCAL_ACCOUNT}:function:workflow-schedule`;
/** The target of the one-time schedules of scheduled messages: the message sweep, as on AWS. */
const LOCAL_MESSAGE_SCHEDULE_TARGET = `arn:aws:lambda:${REGION}:${LOCAL_ACCOUNT}:function:message-sweep`;

/**
 * The local queues and their workers, as the jobs stack declares them (`lib/constructs/webhook-events.ts`,
 * `lib/constructs/workflow-runs.ts`),
 * with visibility timeouts that outlast a batch's work (and, for workflow runs, the local lease) as the
 * deployed ones do.
 */
const LOCAL_QUEUES: LocalQueueDefinition[] = [
  {
    name: 'webhook-delivery',
    // FIFO, as on AWS: a message group per endpoint and resource (`domain/events/delivery-queue.ts`); its
    // messages kept on disk as SQS keeps them, so a restart finds every delivery's message (nothing scans).
    fifo: true,
    durable: true,
    handler: async () => (await import('../workers/webhook-delivery/index')).handler,
    // Outlasts a batch's work (each delivery attempt at most 10 s), as on AWS.
    visibilityTimeoutSeconds: 40,
    maxReceiveCount: WEBHOOK_DELIVERY_MAX_RECEIVES,
    batchSize: 10,
    concurrency: 4,
  },
  {
    name: 'workflow-run',
    handler: async () => (await import('../workers/workflow-run/index')).handler,
    // Outlasts a message's work budget (a quarter of the 30 s lease) plus the lease, as on AWS.
    visibilityTimeoutSeconds: 45,
    maxReceiveCount: WORKFLOW_RUN_MAX_RECEIVES,
    batchSize: 10,
    concurrency: 4,
  },
];

/** How long one service may take to stop before the stack stops the next one anyway. */
const SERVICE_STOP_MS = 5_000;

/** Points the runtime modules at the local services; must run before any of them is imported. */
export const localRuntimeEnvironment = (d: Omit<StackDescription, 'apiUrl' | 'pid' | 'startedAt'>) => {
  // A stack file written before the timing was an option has none: the defaults were in force.
  const webhooks: WebhookTiming = { ...LOCAL_WEBHOOK_TIMING, ...d.webhooks };
  const s3 = ensureS3Credentials(d.dataDir);
  return {
    ...Object.fromEntries(
      Object.entries(d.stateMachineArns).map(([name, arn]) => [stateMachineArnVariable(name), arn]),
    ),
    SFN_ENDPOINT: d.stepFunctionsEndpoint,
    ...Object.fromEntries(
      Object.entries(d.queueUrls ?? {}).map(([name, url]) => [queueUrlVariable(name), url]),
    ),
    ...(d.queueEndpoint ? { SQS_ENDPOINT: d.queueEndpoint } : {}),
    ...(d.schedulerEndpoint
      ? {
          SCHEDULER_ENDPOINT: d.schedulerEndpoint,
          WORKFLOW_SCHEDULE_GROUP: 'workflows',
          WORKFLOW_SCHEDULER_ROLE_ARN: `arn:aws:iam::${LOCAL_ACCOUNT}:role/workflow-scheduler`,
          WORKFLOW_SCHEDULE_TARGET_ARN: LOCAL_SCHEDULE_TARGET,
          MESSAGE_SCHEDULE_GROUP: 'messages',
          MESSAGE_SCHEDULER_ROLE_ARN: `arn:aws:iam::${LOCAL_ACCOUNT}:role/message-scheduler`,
          MESSAGE_SCHEDULE_TARGET_ARN: LOCAL_MESSAGE_SCHEDULE_TARGET,
        }
      : {}),
    JWT_KEYS_FILE: jwtKeysFile(d.dataDir),
    JWT_PUBLIC_KEYS_FILE: jwtPublicKeysFile(d.dataDir),
    DYNADATA_CURSOR_SECRET: ensureCursorKey(d.dataDir),
    WORKFLOW_SECRETS_LOCAL_KEY: ensureWorkflowSecretsKey(d.dataDir),
    S3_ACCESS_KEY_ID: s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    // Webhooks and workflow HTTP actions may reach a receiver on this machine when the stack was started with
    // the loopback allowance (never on AWS), but never a port of the stack's own services.
    ALLOW_LOOPBACK_WEBHOOKS: String(d.outbound.allowLoopback),
    OUTBOUND_DENIED_LOOPBACK_PORTS: d.outbound.deniedLoopbackPorts.join(','),
    // Event deliveries retry within seconds, and give up and disable endpoints within minutes, here.
    WEBHOOK_RETRY_BASE_SECONDS: String(webhooks.retryBaseSeconds),
    WEBHOOK_RETRY_CAP_SECONDS: String(webhooks.retryCapSeconds),
    WEBHOOK_RETRY_WINDOW_SECONDS: String(webhooks.retryWindowSeconds),
    WEBHOOK_DISABLE_AFTER_SECONDS: String(webhooks.disableAfterSeconds),
    // A step the workflow engine started is its message's for 30 s (a step's bound is at most 15 s); the
    // queue's visibility timeout outlasts that lease plus a message's work budget.
    WORKFLOW_RUN_LEASE_SECONDS: '30',
    TABLE_NAME: d.tableName,
    BUCKET_NAME: d.bucketName,
    AWS_REGION: d.region,
    DYNAMODB_ENDPOINT: d.dynamodbEndpoint,
    S3_ENDPOINT: d.s3Endpoint,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    // No X-Ray daemon and no CloudWatch here: no trace segments (Powertools also traces only inside Lambda),
    // and no EMF metric lines in the stack's output. Manual mode keeps the X-Ray SDK from installing its
    // async-hooks context on load, which makes every await of the process many times slower.
    POWERTOOLS_TRACE_ENABLED: 'false',
    AWS_XRAY_MANUAL_MODE: 'true',
    POWERTOOLS_METRICS_DISABLED: 'true',
  };
};

/** Each route group's Lambda handler, loaded from `functions/api/<group>/index.ts` as the CDK app bundles it. */
const loadHandlers = async (): Promise<Record<RouteGroup, ProxyHandler>> => {
  // Every handler shares this process: markdown is read aloud in a worker thread, off the event loop.
  const { registerMarkdownReader } = await import('../shared/domain/spoken-text');
  registerMarkdownReader((await import('./markdown-reader')).readMarkdownInWorker);
  return Object.fromEntries(
    await Promise.all(
      ROUTE_GROUPS.map(async (group) => {
        const module = (await import(`../api/${group}/index.ts`)) as { handler: ProxyHandler };
        return [group, module.handler] as const;
      }),
    ),
  ) as Record<RouteGroup, ProxyHandler>;
};

/** The loopback ports a service answers on: its endpoint's and those behind it. */
const portsOf = (service: Pick<RunningService, 'endpoint' | 'innerPorts'>): number[] => [
  Number(new URL(service.endpoint).port),
  ...(service.innerPorts ?? []),
];

export const startLocalStack = async (options: LocalStackOptions): Promise<LocalStack> => {
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const tableName = options.tableName ?? 'public-api-v1';
  const bucketName = options.bucketName ?? 'public-api-v1-files';
  const started: RunningService[] = [];
  // Each service is given a few seconds to stop, then the next one is stopped anyway: one that hangs (a
  // connection that never ends) never leaves the others, DynamoDB Local's JVM among them, running.
  const stopAll = async () => {
    for (const service of started.reverse()) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        service.stop().catch(() => undefined),
        new Promise<void>((resolve) => {
          timer = setTimeout(() => {
            process.stderr.write(
              `${service.endpoint} did not stop within ${SERVICE_STOP_MS} ms: moving on\n`,
            );
            resolve();
          }, SERVICE_STOP_MS);
        }),
      ]);
      clearTimeout(timer);
    }
  };
  const s3Credentials = ensureS3Credentials(dataDir);
  try {
    // The gateway's port first: held by the server that will serve the API, which answers 503 until then
    // (`gateway-server.ts`), so a client polling from the first moment is answered and never stalls start-up,
    // and a port in use fails the start before anything else runs.
    const gatewayServer = await openGatewayServer(options.port ?? 0);
    started.push({ endpoint: gatewayServer.url, stop: gatewayServer.close });
    const [dynamodb, s3] = await Promise.all([
      startDynamoDbLocal(join(dataDir, 'dynamodb')).then((s) => {
        started.push(s);
        return s;
      }),
      startS3Local(join(dataDir, 's3'), REGION, s3Credentials).then((s) => {
        started.push(s);
        return s;
      }),
    ]);
    const streamArn = await ensureTable(dynamodb.endpoint, REGION, tableName);
    await ensureBucket(s3.endpoint, REGION, bucketName, s3Credentials);
    // The endpoint first, the machines once the runtime environment is set (their task overrides import
    // the worker handlers, which read it).
    const stepFunctions = await startStepFunctionsEmulator({
      region: REGION,
      ...(options.onExecutionEnd ? { onExecutionEnd: options.onExecutionEnd } : {}),
    });
    started.push(stepFunctions);
    const queues = await startLocalQueues({
      region: REGION,
      queues: LOCAL_QUEUES,
      dataDir,
      ...(options.onQueueBatch ? { onBatch: options.onQueueBatch } : {}),
    });
    started.push(queues);
    const scheduler = await startLocalScheduler({
      file: join(dataDir, 'schedules.json'),
      ...(options.scheduleEveryMs ? { everyMs: options.scheduleEveryMs } : {}),
      invoke: async (arn, input) => {
        if (arn === LOCAL_MESSAGE_SCHEDULE_TARGET) {
          await (await import('../workers/message-sweep/index')).handler(JSON.parse(input));
          return;
        }
        if (arn !== LOCAL_SCHEDULE_TARGET) throw new Error(`no local target ${arn}`);
        await (await import('../workers/workflow-schedule/index')).handler(JSON.parse(input));
      },
      onError: (error, s) => process.stderr.write(`schedule ${s.name} failed: ${String(error)}\n`),
    });
    started.push(scheduler);
    const ownPorts = [dynamodb, s3, stepFunctions, queues, scheduler].flatMap(portsOf);
    const services = {
      dynamodbEndpoint: dynamodb.endpoint,
      s3Endpoint: s3.endpoint,
      stepFunctionsEndpoint: stepFunctions.endpoint,
      schedulerEndpoint: scheduler.endpoint,
      stateMachineArns: Object.fromEntries(
        aslFiles().map(({ name }) => [name, stepFunctions.stateMachineArn(name)]),
      ),
      queueEndpoint: queues.endpoint,
      queueUrls: Object.fromEntries(QUEUE_NAMES.map((name) => [name, queues.queueUrl(name)])),
      tableName,
      bucketName,
      region: REGION,
      outbound: {
        allowLoopback: options.allowLoopbackOutbound ?? false,
        deniedLoopbackPorts: [...new Set([...ownPorts, gatewayServer.port])].sort((a, b) => a - b),
      },
      webhooks: { ...LOCAL_WEBHOOK_TIMING, ...options.webhooks },
    };
    ensureJwtKeys(dataDir, new Date());
    Object.assign(process.env, localRuntimeEnvironment({ ...services, dataDir }));
    if (options.emfMetrics) process.env.POWERTOOLS_METRICS_DISABLED = 'false';
    // The local engines stand in for Transcribe and Polly before any task or handler runs.
    (await import('./engines')).registerLocalEngines();
    stepFunctions.addMachines(await loadLocalStateMachines(REGION));

    const { seedLocalData } = await import('./seed');
    const demo = await seedLocalData(dataDir, new Date());
    // Work the previous run left unfinished (its executions are gone) is resumed or settled, before the
    // stream hands over what it had not yet: a job or run is settled only while no new execution can hold it.
    const recovered = await (await import('./recovery')).recoverUnfinishedWork(new Date());
    options.onRecovered?.(recovered);

    // The table's stream feeds the event dispatcher, as the Lambda event source does on AWS.
    const { startEventStream } = await import('./event-stream');
    const eventStream = await startEventStream({
      endpoint: dynamodb.endpoint,
      region: REGION,
      streamArn,
      checkpointFile: join(dataDir, 'event-stream.json'),
      handler: async () => {
        const { handler } = await import('../workers/event-dispatcher/index');
        const around = options.aroundBatch;
        return around ? (event) => around('event-dispatcher', event.Records, () => handler(event)) : handler;
      },
    });
    started.push(eventStream);

    const { startGateway } = await import('./gateway');
    const authorizer = (await import('../authorizer/index')).handler;
    const { shipAccessLogRecords } = await import('../log-shipper/ship');
    const batcher = createLogBatcher(
      (records) =>
        options.aroundBatch
          ? options.aroundBatch('log-shipper', records, () => shipAccessLogRecords(records))
          : shipAccessLogRecords(records),
      (error) => process.stderr.write(`log shipper failed: ${String(error)}\n`),
    );
    started.push({ endpoint: 'log-shipper', stop: batcher.close });
    const printLine =
      options.onAccessLog ?? ((record) => process.stdout.write(`${JSON.stringify(record)}\n`));
    // Stopped after the gateway (services stop in reverse): no request is left waiting on it.
    const { stopMarkdownReader } = await import('./markdown-reader');
    started.push({ endpoint: 'markdown-reader', stop: stopMarkdownReader });
    const gateway = await startGateway(
      {
        authorizer,
        handlers: await loadHandlers(),
        onAccessLog: (record) => {
          printLine(record);
          if (options.shipLogs !== false) batcher.add(record);
        },
      },
      gatewayServer,
    );
    // Stopped first, before the services its handlers call.
    started.push({ endpoint: gateway.url, stop: gateway.close });

    const description: StackDescription = {
      apiUrl: gateway.url,
      ...services,
      dataDir,
      pid: process.pid,
      startedAt: new Date().toISOString(),
    };
    const stackFile = join(dataDir, 'stack.json');
    writeFileAtomically(stackFile, `${JSON.stringify(description, null, 2)}\n`);
    return {
      description,
      demo,
      stop: async () => {
        await stopAll();
        rmSync(stackFile, { force: true });
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
};
