import type { FunctionAccess } from './function-access';

const union = <T>(...lists: (readonly T[] | undefined)[]): T[] => [...new Set(lists.flatMap((l) => l ?? []))];

const unionRecord = <K extends string, T>(
  ...records: (Partial<Record<K, readonly T[]>> | undefined)[]
): Partial<Record<K, T[]>> => {
  const out: Partial<Record<K, T[]>> = {};
  for (const record of records) {
    for (const [key, values] of Object.entries(record ?? {}) as [K, readonly T[]][]) {
      out[key] = union(out[key], values);
    }
  }
  return out;
};

/**
 * The access of a function that makes the calls of several others (a workflow step runs the domain functions
 * of many routes): every action on the union of their partitions, their objects, secrets, machines and
 * unscoped actions. Nothing beyond the parts: each part is itself exactly what some code path calls.
 * `neverCalls` is not combined: it describes one bundle, so the combined function states its own.
 */
export const combineAccess = (...parts: FunctionAccess[]): FunctionAccess => {
  const unscoped = new Map<string, { actions: readonly string[]; reason: string }>();
  for (const entry of parts.flatMap((p) => p.unscoped ?? [])) unscoped.set(entry.actions.join(' '), entry);
  const combined: FunctionAccess = {
    table: unionRecord(...parts.map((p) => p.table)),
    gsi1: union(...parts.map((p) => p.gsi1)),
    work: union(...parts.map((p) => p.work)),
    sortIndexes: union(...parts.map((p) => p.sortIndexes)),
    objects: unionRecord(...parts.map((p) => p.objects)),
    secrets: union(...parts.map((p) => p.secrets)),
    workflowSecretsKey: union(...parts.map((p) => p.workflowSecretsKey)),
    stateMachines: unionRecord(...parts.map((p) => p.stateMachines)),
    queues: unionRecord(...parts.map((p) => p.queues)),
    unscoped: [...unscoped.values()],
  };
  if (parts.some((p) => p.rotatesDownloadSigner)) combined.rotatesDownloadSigner = true;
  return combined;
};
