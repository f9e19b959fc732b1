import { putObject } from '../../aws/s3';
import { readObjectText } from '../../aws/s3-objects';
import { recordStoredObject } from '../../data/stored-objects';
import { env } from '../../env';
import { companyObjectPrefix } from '../../types/object-prefixes';
import type { StoredStepOutput, WorkflowRunRecord } from '../../types/workflows';
import type { ReferenceScope } from './references';
import { newSecretRegistry, redactSecrets, type SecretRegistry } from './secrets';
import type { StepResult } from './step-runner';

/**
 * The state a runner carries between steps: what is persisted on the run item (logs, stored outputs, files,
 * cursor, execution time) and the step values references resolve against. Outputs up to
 * `INLINE_OUTPUT_BYTES` stay in the run item; larger ones are stored objects of the company under
 * `companies/<companyId>/workflows/runs/<runId>/steps/<stepId>.json`.
 */
export const INLINE_OUTPUT_BYTES = 4096;

export interface RunState
  extends Pick<WorkflowRunRecord, 'cursor' | 'logs' | 'outputs' | 'files' | 'executionTimeMs'> {
  values: ReferenceScope['steps'];
  /** Secrets this invocation's steps produced (never persisted: a later invocation sees stand-ins). */
  secrets: SecretRegistry;
  /** Inline outputs as they were before redaction, for the answer of a sync run only. */
  revealed: Record<string, StoredStepOutput>;
}

export const scopeOf = (run: WorkflowRunRecord, state: RunState): ReferenceScope => ({
  input: run.input,
  runId: run.runId,
  steps: state.values,
  trigger: run.trigger ?? { type: 'api' },
});

/** `companies/<companyId>/workflows/runs/<runId>/steps/<stepId>.json`: a stored step output. */
export const stepOutputPath = (run: Pick<WorkflowRunRecord, 'companyId' | 'runId'>, stepId: string) =>
  `${companyObjectPrefix(run.companyId, 'workflowRuns')}${run.runId}/steps/${stepId}.json`;

/** Where the items of a run's `forEach` step are recorded (`for-each-items.ts`). */
export const forEachAddress = (
  run: Pick<WorkflowRunRecord, 'companyId' | 'runId'>,
  step: { id: string },
) => ({
  companyId: run.companyId,
  runId: run.runId,
  stepId: step.id,
});

const storeOutput = async (
  run: WorkflowRunRecord,
  stepId: string,
  output: unknown,
): Promise<StoredStepOutput> => {
  const text = JSON.stringify(output ?? null);
  const bytes = Buffer.byteLength(text);
  if (bytes <= INLINE_OUTPUT_BYTES) return { inline: output ?? null };
  const object = { bucket: env().bucketName, fullPath: stepOutputPath(run, stepId) };
  const { etag } = await putObject(object.bucket, object.fullPath, text, 'application/json');
  await recordStoredObject(
    run.companyId,
    { ...object, size: bytes, contentType: 'application/json', etag, createdAt: new Date().toISOString() },
    new Date(),
  );
  return { object, bytes };
};

/**
 * Adds a step's result to the state: its secrets registered first, then its log and output stored (inline
 * or as an object) with every secret of the run redacted. The step's value for later references keeps the
 * secret only in memory, within this invocation.
 */
export const applyStepResult = async (run: WorkflowRunRecord, state: RunState, result: StepResult) => {
  for (const [secret, standIn] of result.secrets ?? []) state.secrets.set(secret, standIn);
  state.logs.push(redactSecrets(result.log, state.secrets));
  state.cursor += 1;
  if (result.log.status === 'succeeded') {
    const durable = redactSecrets(result.output, state.secrets);
    const stored = await storeOutput(run, result.log.step, durable);
    state.outputs[result.log.step] = stored;
    if (durable !== result.output && 'inline' in stored) {
      state.revealed[result.log.step] = { inline: result.output ?? null };
    }
    state.values[result.log.step] = { status: 'succeeded', output: result.output };
    state.files.push(...result.files);
  } else if (result.log.status === 'skipped') {
    state.outputs[result.log.step] = { inline: null };
    state.values[result.log.step] = { status: 'skipped', output: null };
  } else if (result.output !== undefined) {
    // A step failed by its action's answer (an HTTP status it does not accept) keeps that answer as output.
    const durable = redactSecrets(result.output, state.secrets);
    state.outputs[result.log.step] = await storeOutput(run, result.log.step, durable);
    state.values[result.log.step] = { status: 'failed', output: result.output };
  } else {
    state.values[result.log.step] = { status: 'failed' };
  }
};

/** The state of a persisted run, step values read back (large outputs from their objects). */
export const stateOfRun = async (run: WorkflowRunRecord): Promise<RunState> => {
  const values: RunState['values'] = {};
  for (const log of run.logs) {
    const stored = run.outputs[log.step];
    if (log.status === 'skipped') {
      values[log.step] = { status: 'skipped', output: null };
      continue;
    }
    if (!stored) {
      values[log.step] = { status: log.status };
      continue;
    }
    const output =
      'inline' in stored
        ? stored.inline
        : JSON.parse((await readObjectText(stored.object.bucket, stored.object.fullPath)) ?? 'null');
    values[log.step] = { status: log.status, output };
  }
  return {
    cursor: run.cursor,
    logs: [...run.logs],
    outputs: { ...run.outputs },
    files: [...run.files],
    executionTimeMs: run.executionTimeMs,
    values,
    secrets: newSecretRegistry(),
    revealed: {},
  };
};

export const newRunState = (): RunState => ({
  cursor: 0,
  logs: [],
  outputs: {},
  files: [],
  executionTimeMs: 0,
  values: {},
  secrets: newSecretRegistry(),
  revealed: {},
});
