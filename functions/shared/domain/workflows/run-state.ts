import { putObject } from '../../aws/s3';
import { readObjectText } from '../../aws/s3-objects';
import { recordStoredObject } from '../../data/stored-objects';
import { env } from '../../env';
import { companyObjectPrefix } from '../../types/object-prefixes';
import type { StoredStepOutput, WorkflowDefinition, WorkflowRunRecord } from '../../types/workflows';
import { type ReferenceScope, secretNamesIn } from './references';
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
  /**
   * Secrets this invocation's steps produced and the workflow secrets the definition references (never
   * persisted: a later invocation sees stand-ins, and loads the workflow secrets again).
   */
  secrets: SecretRegistry;
  /** The workflow secrets alone: redacted from the sync caller's answer too (a minted token is shown once). */
  vault: SecretRegistry;
  /** The workflow secrets' values by name, for the references of HTTP steps (`{{ secrets.NAME }}`). */
  secretValues: Map<string, string>;
  /** Inline outputs as they were before redaction, for the answer of a sync run only. */
  revealed: Record<string, StoredStepOutput>;
}

export const scopeOf = (run: WorkflowRunRecord, state: RunState): ReferenceScope => ({
  input: run.input,
  runId: run.runId,
  steps: state.values,
  trigger: run.trigger ?? { type: 'api' },
  secrets: state.secretValues,
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
      // Shown to the sync caller: the tokens its steps minted, never a workflow secret.
      state.revealed[result.log.step] = { inline: redactSecrets(result.output, state.vault, true) ?? null };
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
    vault: newSecretRegistry(),
    secretValues: new Map(),
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
  vault: newSecretRegistry(),
  secretValues: new Map(),
  revealed: {},
});

/**
 * Loads the workflow secrets the definition's steps reference into the state: their values for the HTTP
 * steps' references, and each registered for redaction from everything the run writes. A secret the company
 * does not hold is left out (the step that uses it fails with `secret_not_found`).
 */
export const loadRunSecrets = async (
  companyId: string,
  definition: Pick<WorkflowDefinition, 'steps'>,
  state: RunState,
): Promise<void> => {
  const names = [...new Set(definition.steps.flatMap((step) => secretNamesIn(step.with ?? {})))];
  if (names.length === 0) return;
  const { revealSecrets } = await import('./vault-reveal');
  for (const [name, value] of await revealSecrets(companyId, names)) {
    const standIn = { redacted: true, secret: name };
    state.secretValues.set(name, value);
    state.secrets.set(value, standIn);
    state.vault.set(value, standIn);
  }
};
