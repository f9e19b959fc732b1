import { contextBytes, openWith, sealWith, unwrapDataKey } from '../../aws/kms';
import { generateDataKey } from '../../aws/kms-data-keys';
import { listRunSecrets, putRunSecret } from '../../data/workflow-runs/run-secrets';
import type { WorkflowRunRecord } from '../../types/workflows';
import type { ReferenceScope } from './references';
import type { SecretRegistry } from './secrets';

/** What of a run's state the kept secrets go back into (`run-state.ts`'s `RunState`). */
interface SecretsState {
  values: ReferenceScope['steps'];
  secrets: SecretRegistry;
}

/**
 * Secrets an async run's steps produce (a minted token), kept for the run's later turns: sealed under a data
 * key of their own (`docs/decisions/0029-workflow-secrets-envelope-encryption.md`, with the run and the step as
 * encryption context) in the run's partition, opened again when the engine picks the run up in another
 * invocation, and put back where the step's output holds its stand-in, so `{{ steps.<id>.output.token }}`
 * reaches later steps' requests. Every read of the run (its steps, its event, `GET`) shows the stand-in only.
 */
const contextOf = (companyId: string, runId: string, stepId: string) => ({
  companyId,
  workflowRunSecret: `${runId}/${stepId}`,
});

/** Seconds a kept secret outlives its own expiry before the table's TTL removes it. */
const TTL_MARGIN_SECONDS = 3600;

export const keepRunSecret = async (
  run: { companyId: string; runId: string; stepId: string },
  field: string,
  value: string,
  expiresAt: string,
): Promise<void> => {
  const context = contextOf(run.companyId, run.runId, run.stepId);
  const key = await generateDataKey(context);
  const sealed = sealWith(key.plaintext, Buffer.from(value, 'utf8'), contextBytes(context));
  key.plaintext.fill(0);
  await putRunSecret(run.companyId, run.runId, {
    stepId: run.stepId,
    field,
    sealed: sealed.toString('base64'),
    wrappedKey: key.wrapped.toString('base64'),
    ttl: Math.ceil(Date.parse(expiresAt) / 1000) + TTL_MARGIN_SECONDS,
  });
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Puts the run's kept secrets back into the outputs later steps reference, each registered for redaction
 * with the stand-in the stored output holds.
 */
export const restoreRunSecrets = async (run: WorkflowRunRecord, state: SecretsState): Promise<void> => {
  for (const kept of await listRunSecrets(run.companyId, run.runId)) {
    const step = state.values[kept.stepId];
    if (!step || !isRecord(step.output)) continue;
    const context = contextOf(run.companyId, run.runId, kept.stepId);
    const key = await unwrapDataKey(Buffer.from(kept.wrappedKey, 'base64'), context);
    const value = openWith(key, Buffer.from(kept.sealed, 'base64'), contextBytes(context)).toString('utf8');
    key.fill(0);
    const standIn = step.output[kept.field];
    state.secrets.set(value, isRecord(standIn) ? standIn : { redacted: true });
    state.values[kept.stepId] = { ...step, output: { ...step.output, [kept.field]: value } };
  }
};
