/**
 * Examples of the workflow definition and run-control operations (saving, deleting, canceling), joined into
 * `route-examples.ts`: a definition with a retried HTTP step, a `forEach` step and a step with a condition,
 * and the answers.
 */
const at = '2026-11-02T09:30:00.000Z';
const later = '2026-11-02T09:30:41.000Z';

const definition = {
  name: 'Notify on order',
  input: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
  steps: [
    {
      id: 'order',
      action: 'actions/http/request',
      with: { method: 'GET', url: 'https://shop.example.com/orders/{{ input.orderId }}' },
      retry: { maxAttempts: 3, backoffSeconds: 2, on: ['http_5xx', 'timeout'] },
    },
    {
      id: 'stock',
      action: 'actions/http/request',
      forEach: '{{ steps.order.output.body.lines }}',
      concurrency: 5,
      with: {
        method: 'POST',
        url: 'https://shop.example.com/stock/{{ item.sku }}/reserve',
        body: { quantity: '{{ item.quantity }}', line: '{{ index }}' },
      },
      retry: { maxAttempts: 2, backoffSeconds: 1 },
    },
    {
      id: 'say',
      action: 'actions/speech/spoken-text',
      with: { markdown: 'Order {{ input.orderId }} has shipped.' },
      if: { eq: ['{{ steps.order.output.body.status }}', 'shipped'] },
    },
  ],
  return: { status: '{{ steps.order.output.status }}', text: '{{ steps.say.output.text }}' },
};

const saved = (version: number) => ({
  workflow: {
    id: 'notify-order',
    version,
    name: definition.name,
    description: null,
    input: definition.input,
    steps: definition.steps.map((s) => ({ ...s, allowFailure: false })),
    return: definition.return,
    on: null,
    createdAt: at,
    updatedAt: version === 1 ? at : later,
  },
});

export const WORKFLOW_REQUEST_EXAMPLES = { putWorkflow: definition };

/** A saved version as `/versions` shows it: the workflow of that version, and when it was saved. */
const version = (n: number) => ({ ...saved(n).workflow, savedAt: n === 1 ? at : later });

export const WORKFLOW_RESPONSE_EXAMPLES = {
  putWorkflow: saved(2),
  listWorkflowVersions: { versions: [version(1), version(2)], nextCursor: null },
  getWorkflowVersion: { workflow: version(1) },
  cancelWorkflowRun: {
    run: {
      runId: 'wr_01jd3xq0e5g7j9l1n3p5r7t9v2',
      workflowId: 'notify-order',
      version: 2,
      mode: 'async',
      trigger: { type: 'api' },
      status: 'canceled',
      ok: false,
      result: null,
      files: [],
      logs: [
        {
          step: 'order',
          action: 'actions/http/request',
          status: 'failed',
          startedAt: at,
          durationMs: 4100,
          message: 'The step was running when the run was canceled.',
          attempts: [{ startedAt: at, durationMs: 2012, status: 'succeeded', httpStatus: 503 }],
        },
      ],
      error: { code: 'workflow_run_canceled', message: 'The run was canceled.' },
      failedSteps: [
        {
          step: 'order',
          code: 'step_interrupted',
          userMessage: 'The step was running when the run was canceled.',
        },
      ],
      executionTimeMs: 2012,
      createdAt: at,
      updatedAt: later,
      finishedAt: later,
      handedOffAt: null,
    },
  },
};

export const WORKFLOW_ALSO_ANSWER_EXAMPLES = { putWorkflow: { 201: saved(1) } };
