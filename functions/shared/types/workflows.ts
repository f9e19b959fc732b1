import type { RunTrigger, WorkflowTriggers } from './workflow-triggers';

/**
 * Shapes of company workflows and their runs, shared by the data modules, the domain and the routes.
 */
export const WORKFLOW_ID_PATTERN = /^[a-z0-9_-]{1,64}$/;
export const WORKFLOW_STEP_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
/** A workflow secret's name (`{{ secrets.NAME }}`): upper case, digits and `_`, starting with a letter. */
/** The `caller.source` of a run a trigger started: no credential, so nothing to derive a token from. */
export const TRIGGER_CALLER_PREFIX = 'trigger:';
export const SECRET_NAME_PATTERN = /^[A-Z][A-Z0-9_]{0,63}$/;
/** Not a workflow id: `/v1/workflows/secrets` is the path of the company's workflow secrets. */
export const RESERVED_WORKFLOW_IDS: ReadonlySet<string> = new Set(['secrets']);
export const WORKFLOW_MAX_STEPS = 50;

/** What a step's `retry` retries on (`domain/workflows/retry.ts`). */
export const RETRY_CLASSES = ['http_5xx', 'http_4xx', 'http_429', 'timeout', 'network', 'error'] as const;
export type RetryClass = (typeof RETRY_CLASSES)[number];

/** A step's `retry`: attempts in all, the first wait (doubled each time, jittered) and what is retried. */
export interface StepRetry {
  maxAttempts: number;
  backoffSeconds?: number;
  on?: RetryClass[];
}

export interface WorkflowStep {
  id: string;
  action: string;
  with?: Record<string, unknown>;
  allowFailure?: boolean;
  /**
   * A condition over values and `{{ references }}`, of the grammar `domain/workflows/conditions.ts` declares
   * (`conditionSchema`, its type `Condition`); checked when the definition is saved, read through the schema.
   */
  if?: unknown;
  retry?: StepRetry;
  /**
   * A list to loop over (`domain/workflows/for-each.ts`): one `{{ reference }}` resolving to an array, or an
   * array written out; the action runs once per item, with `{{ item }}` and `{{ index }}` in its `with`.
   */
  forEach?: string | unknown[];
  /** Items of a `forEach` run at once (1..`FOREACH_MAX_CONCURRENCY`, default 1). */
  concurrency?: number;
}

export const FOREACH_MAX_CONCURRENCY = 10;
export const FOREACH_DEFAULT_CONCURRENCY = 1;

export interface WorkflowDefinition {
  id: string;
  name: string;
  description?: string;
  input?: Record<string, unknown>;
  steps: WorkflowStep[];
  return?: unknown;
  /** Events and schedule that start runs (`workflow-triggers.ts`). */
  on?: WorkflowTriggers;
}

/** A saved version of a definition. */
export interface WorkflowVersion {
  companyId: string;
  workflowId: string;
  version: number;
  definition: WorkflowDefinition;
  createdAt: string;
}

export const WORKFLOW_RUN_STATUSES = ['running', 'success', 'partial', 'failed', 'canceled'] as const;
export type WorkflowRunStatus = (typeof WORKFLOW_RUN_STATUSES)[number];
export type FinalRunStatus = Exclude<WorkflowRunStatus, 'running'>;
/** The statuses a run does not leave (the document marks them `x-final-states`). */
export const FINAL_RUN_STATUSES = [
  'success',
  'partial',
  'failed',
  'canceled',
] as const satisfies readonly FinalRunStatus[];

export const STEP_STATUSES = ['succeeded', 'failed', 'skipped'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

/** One step's log line: what ran, how it ended, how long it took. */
export interface StepLog {
  step: string;
  action: string;
  status: StepStatus;
  startedAt: string;
  durationMs: number;
  message?: string;
  /** Failed steps: the error code and the message for end users. */
  code?: string;
  userMessage?: string;
  handled?: boolean;
  /** Steps with a `retry`: every attempt, the last one being the step's result. */
  attempts?: StepAttempt[];
}

/** One attempt of a step that has a `retry`. */
export interface StepAttempt {
  startedAt: string;
  durationMs: number;
  status: 'succeeded' | 'failed';
  /** The error code of a failed attempt. */
  code?: string;
  /** The HTTP status an `actions/http/request` attempt was answered with. */
  httpStatus?: number;
}

/** The attempts of the step at `index` so far, and when the next may start (a retry waiting). */
export interface PendingAttempts {
  index: number;
  notBefore: string;
  attempts: StepAttempt[];
}

export interface FailedStep {
  step: string;
  code: string;
  userMessage: string;
  handled?: true;
}

export interface StorageRef {
  bucket: string;
  fullPath: string;
}

/** A step output kept inline in the run item, or (when large) as a stored object of the company. */
export type StoredStepOutput = { inline: unknown } | { object: StorageRef; bytes: number };

export type RunMode = 'sync' | 'async';

/**
 * The credential that started a run, as far as a token minted by the run must follow it (`auth/jwt-mint.ts`):
 * its root credential, and for a token its id, expiry and address allow-list. Never the credential itself.
 */
export interface RunCaller {
  source: string;
  tokenId?: string;
  /** Epoch seconds. */
  expiresAt?: number;
  ips?: string[];
  /** A token caller's ancestors (`anc`). */
  ancestors?: string[];
}

/** The run item: the read model of sync and async runs alike. */
export interface WorkflowRunRecord {
  companyId: string;
  runId: string;
  workflowId: string;
  version: number;
  mode: RunMode;
  status: WorkflowRunStatus;
  includeStepOutputs: boolean;
  input: Record<string, unknown>;
  /** Scopes of the credential that started the run: every step is checked against them. */
  callerScopes: string[];
  /** The starting credential's limits a token minted by the run inherits (absent on runs from before). */
  caller?: RunCaller;
  /** How many workflow runs deep the request that started the run was (absent on runs stored before: 0). */
  hop?: number;
  /** Set on a run started through the MCP server: none of its steps mints a token, sync or async. */
  mintsNoToken?: true;
  /** Step time the run may use (its plan's `workflowRunComputeMs` when it started; absent on older runs). */
  computeBudgetMs?: number;
  /** Index of the next step to run. */
  cursor: number;
  /** The step that started and has not been recorded yet (async engine). */
  current?: { index: number; startedAt: string };
  /**
   * The async engine's fencing token: how many turns (steps or attempts) were recorded. A queue message
   * names the turn it may take; absent is 0 (`domain/workflows/run-queue.ts`).
   */
  turn?: number;
  /** The attempts of the step at the cursor while its `retry` waits for the next. */
  pendingAttempts?: PendingAttempts;
  logs: StepLog[];
  outputs: Record<string, StoredStepOutput>;
  files: StorageRef[];
  result?: unknown;
  error?: { code: string; message?: string };
  failedSteps?: FailedStep[];
  executionTimeMs: number;
  createdAt: string;
  updatedAt: string;
  finishedAt?: string;
  handedOffAt?: string;
  /** What started a run not started through the API (absent: an API call). */
  trigger?: RunTrigger;
}
