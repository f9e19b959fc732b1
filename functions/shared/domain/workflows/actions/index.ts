import { flowFail } from './flow-fail';
import { httpRequestAction } from './http-request';
import { jwtGenerate } from './jwt-generate';
import type { WorkflowAction } from './registry';

export type { ActionContext, WorkflowAction } from './registry';

/**
 * Every action a workflow step may name: the workflow engine's own (a token, an HTTP request, a failure) and every
 * operation offered to workflows (the route table's `workflow` marks), which the entries that run or save
 * workflows register at start (`operations/workflow-actions.ts`): the engine never imports the route table.
 */
let actions: ReadonlyMap<string, WorkflowAction> | undefined;

export const registerActions = (operations: readonly WorkflowAction[]): void => {
  actions = new Map([jwtGenerate, ...operations, httpRequestAction, flowFail].map((a) => [a.name, a]));
};

export const findAction = (name: string): WorkflowAction | undefined => {
  if (!actions) throw new Error('The workflow actions are not registered: call registerWorkflowActions().');
  return actions.get(name);
};
