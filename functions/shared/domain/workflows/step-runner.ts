import { AppError } from '../../errors';
import { logger } from '../../observability/logger';
import { DeclaredStepFailure, StepOutcomeError } from '../../step-outcomes';
import type { StepLog, StorageRef, WorkflowStep } from '../../types/workflows';
import type * as z from '../../zod';
import { type ActionContext, findAction } from './actions';
import { type ReferenceScope, resolveReferences, secretNamesIn } from './references';
import { newSecretRegistry, redactSecrets, type SecretRegistry, secretsOf } from './secrets';

/**
 * Runs one step: resolves the references of its `with` (as data), checks the scope its action needs against
 * the credential that started the run, validates the input with the action's zod schema, and runs the
 * action within its time bound. Every failure becomes the step's result (`code`, `userMessage`), never an
 * exception: a failing step does not abort the run.
 */
export interface StepResult {
  log: StepLog;
  output?: unknown;
  files: StorageRef[];
  /** The secrets the output holds (its action's `secretFields`), each with its redacted stand-in. */
  secrets?: [string, Record<string, unknown>][];
  /** Why a failed step failed, beyond its code (`http_request_failed`: `timeout`, `network`), for `retry`. */
  reason?: string;
  /** The status of the answer that failed an HTTP step (`http_status`), for `retry`. */
  httpStatus?: number;
}

const pointerOf = (path: readonly PropertyKey[]) => `/${path.map(String).join('/')}`;

const inputProblems = (error: z.ZodError) =>
  error.issues.map((i) => `${pointerOf(i.path)}: ${i.message}`).join('; ');

const withTimeout = <T>(work: Promise<T>, ms: number): Promise<T> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new StepOutcomeError('step_timeout', `The step did not finish within ${ms} ms.`)),
      ms,
    );
    work.then(resolve, reject).finally(() => clearTimeout(timer));
  });

class StepFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const attempt = async (
  step: WorkflowStep,
  scope: ReferenceScope,
  ctx: ActionContext,
): Promise<Omit<StepResult, 'log'>> => {
  const action = findAction(step.action);
  if (!action) throw new StepFailure('validation_failed', `Unknown action ${step.action}.`);
  if (!ctx.callerScopes.includes(action.scope)) {
    throw new StepFailure('insufficient_scope', `This action requires the scope ${action.scope}.`);
  }
  const missing = secretNamesIn(step.with ?? {}).find((name) => !scope.secrets?.has(name));
  if (missing !== undefined) {
    throw new StepFailure('secret_not_found', `The workflow secret ${missing} does not exist.`);
  }
  const parsed = action.input.safeParse(resolveReferences(step.with ?? {}, scope));
  if (!parsed.success) {
    throw new StepFailure(
      'validation_failed',
      `The step input is not valid: ${inputProblems(parsed.error)}.`,
    );
  }
  const output = await withTimeout(action.run(parsed.data, ctx), action.maxDurationMs);
  return { output, files: action.files?.(output) ?? [], secrets: secretsOf(output, action.secretFields) };
};

export const runStep = async (
  step: WorkflowStep,
  scope: ReferenceScope,
  ctx: ActionContext,
  /** Secrets earlier steps produced: kept out of what this step logs. */
  secrets: SecretRegistry = newSecretRegistry(),
): Promise<StepResult> => {
  const started = Date.now();
  const base = { step: step.id, action: step.action, startedAt: new Date(started).toISOString() };
  try {
    const { output, files, secrets } = await attempt(step, scope, {
      ...ctx,
      stepId: step.id,
      now: new Date(started),
    });
    return {
      log: { ...base, status: 'succeeded', durationMs: Date.now() - started, message: 'ok' },
      output,
      files,
      ...(secrets?.length ? { secrets } : {}),
    };
  } catch (error) {
    let code = 'internal';
    let userMessage = 'The step failed unexpectedly.';
    let reason: unknown;
    // A step failed by what its action answered (an HTTP status it does not accept) keeps that answer.
    let answered: { output: unknown; httpStatus?: number } | undefined;
    if (error instanceof StepFailure || error instanceof AppError || error instanceof StepOutcomeError) {
      code = error.code;
      userMessage = error.message;
      reason = error instanceof StepFailure ? undefined : error.extensions?.reason;
      if (error instanceof StepOutcomeError && error.extensions && 'output' in error.extensions) {
        const { output, httpStatus } = error.extensions;
        answered = { output, ...(typeof httpStatus === 'number' ? { httpStatus } : {}) };
      }
    } else if (error instanceof DeclaredStepFailure) {
      // The definition ends its run (`actions/flow/fail`): never handled, whatever `allowFailure` says.
      return {
        log: {
          ...base,
          status: 'failed',
          durationMs: Date.now() - started,
          message: error.message,
          code: error.code,
          userMessage: error.message,
        },
        files: [],
      };
    } else {
      const { name, message, stack } = error instanceof Error ? error : new Error(String(error));
      logger.error('workflow step failed', {
        runId: ctx.runId,
        step: step.id,
        error: redactSecrets({ name, message, stack }, secrets),
      });
    }
    return {
      log: {
        ...base,
        status: 'failed',
        durationMs: Date.now() - started,
        message: userMessage,
        code,
        userMessage,
        ...(step.allowFailure ? { handled: true } : {}),
      },
      files: [],
      ...(typeof reason === 'string' ? { reason } : {}),
      ...(answered ?? {}),
    };
  }
};

/** The time bound of a step's action (the sync runner's deadline check). */
export const stepBoundMs = (step: WorkflowStep): number => findAction(step.action)?.maxDurationMs ?? 5_000;
