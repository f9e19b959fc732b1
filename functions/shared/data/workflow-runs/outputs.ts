import { lazy } from '../../lazy';
import type { WorkflowRunRecord } from '../../types/workflows';
import * as zm from '../../zod-mini';
import { objectReference } from '../schemas';

/**
 * Tenant JSON (the run input, inline step outputs, the result) is stored as JSON text, so any JSON value
 * fits whatever its nesting depth or key names (DynamoDB maps allow 32 levels).
 */
export const storedOutputs = /* @__PURE__ */ lazy(() =>
  zm.record(
    zm.string(),
    zm.union([
      zm.object({ json: zm.string() }),
      zm.object({ object: objectReference(), bytes: zm.number() }),
    ]),
  ),
);
type StoredOutputs = zm.output<ReturnType<typeof storedOutputs>>;

/** A run's step outputs as stored: an inline output as JSON text, a file output as its reference. */
export const encodeOutputs = (outputs: WorkflowRunRecord['outputs']): StoredOutputs =>
  Object.fromEntries(
    Object.entries(outputs).map(([step, o]) => [
      step,
      'inline' in o ? { json: JSON.stringify(o.inline ?? null) } : o,
    ]),
  );

export const decodeOutputs = (outputs: StoredOutputs | undefined): WorkflowRunRecord['outputs'] =>
  Object.fromEntries(
    Object.entries(outputs ?? {}).map(([step, o]) => [
      step,
      'json' in o ? { inline: JSON.parse(o.json) } : o,
    ]),
  );
