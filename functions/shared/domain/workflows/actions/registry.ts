import { keepGetters } from '../../../lazy';
import type { PlanLimits } from '../../../types/plans';
import type { Scope } from '../../../types/scopes';
import type { RunCaller, StorageRef } from '../../../types/workflows';
import type * as z from '../../../zod';

/**
 * The action registry: one module per action (`./<area>-<name>.ts`), each a zod input schema, the scope the
 * run's credential must hold, an upper bound of its duration (the sync runner starts a step only when it
 * can end before the deadline) and an implementation that calls the same domain functions as the routes.
 */
export interface ActionContext {
  companyId: string;
  runId: string;
  /** The step being run (set by the step runner): with the run, it keys the step's writes (idempotency). */
  stepId?: string;
  /** Scopes of the credential that started the run. */
  callerScopes: readonly string[];
  /** The starting credential's limits, for a token minted by the run. */
  caller: RunCaller | undefined;
  /** True while the run executes in the call that started it (its answer reaches the caller). */
  sync: boolean;
  /** False where the function holds no signing key (a run started through the MCP server): no token is minted. */
  mints?: boolean;
  /** The run's workflow hop: its HTTP requests carry one more (`workflow-hops.ts`). */
  hop: number;
  now: Date;
  /** The company's resolved limits (read once per run, when an action needs them). */
  limits: () => Promise<PlanLimits>;
}

export interface WorkflowAction<S extends z.ZodType = z.ZodType, O = unknown> {
  name: string;
  scope: Scope;
  /**
   * Declared as a getter (`get input() {...}`): built on its first read, by the first step that runs the
   * action, and kept (`defineAction`), so loading the registry builds no action's schema.
   */
  input: S;
  /** The longest one run of the action may take, in milliseconds. */
  maxDurationMs: number;
  run: (input: z.output<S>, ctx: ActionContext) => Promise<O>;
  /**
   * Output fields that hold a secret (a minted token): the run engine keeps them out of everything it
   * stores (`../secrets.ts`); only a sync run's caller sees them, once, in the answer.
   */
  secretFields?: readonly string[];
  /**
   * What can be known wrong about the step's `with` when the definition is saved (its literal parts; values
   * that come from `{{ references }}` are checked when the step runs), each with its pointer.
   */
  withProblems?: (
    value: Record<string, unknown>,
    pointer: string,
    add: (pointer: string, message: string) => void,
  ) => void;
  /** Storage references the output produced: they join the run's `files`. */
  files?: (output: O) => StorageRef[];
}

export const defineAction = <S extends z.ZodType, O>(action: WorkflowAction<S, O>): WorkflowAction =>
  keepGetters(action, ['input']) as unknown as WorkflowAction;
