/**
 * The codes a workflow step or run ends with, apart from the HTTP problems of `errors.ts`: they appear in a
 * run's `error` and `failedSteps` (the run itself answers 200 whatever its steps did), never as a problem. A
 * step also ends with any problem code its operation answers (`not_found`, `validation_failed`, …).
 */
export const STEP_OUTCOME_CATALOG = {
  workflow_steps_failed: { title: 'Workflow steps failed' },
  jwt_scopes_exceed_caller: { title: 'Scopes wider than those of the credential that started the run' },
  jwt_ips_exceed_caller: { title: 'Addresses outside those of the credential that started the run' },
  jwt_derivation_too_deep: { title: 'Too many derivations from the root credential' },
  jwt_source_expired: { title: 'The credential that started the run has expired' },
  jwt_requires_sync_run: { title: 'A token can be minted only in a synchronous run' },
  http_target_refused: { title: 'The request target is not allowed' },
  http_request_failed: { title: 'The HTTP request failed' },
  http_status: { title: 'The HTTP answer has a status the step does not accept' },
  invalid_header: { title: 'A request header is not valid HTTP' },
  step_timeout: { title: 'The step did not finish in time' },
  condition_type_mismatch: { title: "The step's condition compares values of types it cannot compare" },
  step_interrupted: { title: 'The step was interrupted' },
  foreach_not_array: { title: 'The forEach of the step is not a list' },
  foreach_too_many_items: { title: "The forEach list is longer than the plan's workflowForEachItems" },
  foreach_item_output_too_large: { title: 'The output of a forEach item is too large' },
  foreach_items_failed: { title: 'Items of the forEach step failed' },
  workflow_run_failed: { title: 'The workflow run could not complete' },
  workflow_compute_exceeded: { title: 'The workflow run used its compute budget' },
  workflow_run_canceled: { title: 'The workflow run was canceled' },
} as const satisfies Record<string, { title: string }>;

export type StepOutcomeCode = keyof typeof STEP_OUTCOME_CATALOG;

/** A step failing with an outcome of its own (the step runner records its code and message). */
export class StepOutcomeError extends Error {
  readonly code: StepOutcomeCode;
  readonly extensions: Record<string, unknown> | undefined;

  constructor(code: StepOutcomeCode, message: string, extensions?: Record<string, unknown>) {
    super(message);
    this.name = 'StepOutcomeError';
    this.code = code;
    this.extensions = extensions;
  }
}

/**
 * A step that fails the run on purpose (`actions/flow/fail`) with a code of the definition's own: the run
 * ends `failed` with it, and no further step runs.
 */
export class DeclaredStepFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'DeclaredStepFailure';
  }
}
