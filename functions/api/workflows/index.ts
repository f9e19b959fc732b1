import { createApiHandler } from '../../shared/http/middleware';
import { registerWorkflowActions } from '../../shared/operations/workflow-actions';
import * as workflows from '../../shared/operations/workflows';
import { WORKFLOW_ROUTES } from '../../shared/routes/workflow-routes';
import { WORKFLOW_SECRET_ROUTES } from '../../shared/routes/workflow-secret-routes';

// Sync runs execute their steps here, and a saved definition names actions: both read the action catalogue.
registerWorkflowActions();

export const handler = createApiHandler(
  'workflows',
  [...WORKFLOW_SECRET_ROUTES, ...WORKFLOW_ROUTES],
  workflows,
);
