import '../../shared/domain/dynadata/builtin-functions';
import { assertCursorKeyConfigured } from '../../shared/domain/dynadata/cursor-key';
import { executeFunction } from '../../shared/domain/dynadata/execute-function';
import {
  createItem,
  deleteItem,
  getItem,
  updateItem,
  validateItem,
} from '../../shared/domain/dynadata/items';
import { listItems } from '../../shared/domain/dynadata/list';
import { librarySchema, typeSchema } from '../../shared/domain/dynadata/schemas';
import { typeSummaryPage } from '../../shared/domain/dynadata/types';
import { createApiHandler } from '../../shared/http/middleware';
import { DYNADATA_ROUTES } from '../../shared/routes/dynadata-routes';

// Lists sign their cursors: without a configured key the function refuses to start.
assertCursorKeyConfigured();

// The route table switches on the log-entry guard (create, update, delete) and Idempotency-Key (create and
// the functions); the shared chain applies both.
export const handler = createApiHandler('dynadata', DYNADATA_ROUTES, {
  listDynadataTypes: async ({ auth, query }) => ({ body: await typeSummaryPage(auth.companyId, query) }),
  listDynadataItems: async ({ auth, params, body }) => ({
    body: await listItems(auth.companyId, params.type, body),
  }),
  getDynadataItem: async ({ auth, params }) => ({
    body: await getItem(auth.companyId, params.type, params._id),
  }),
  createDynadataItem: async ({ auth, params, body }) => ({
    body: await createItem(auth.companyId, params.type, body, new Date()),
  }),
  updateDynadataItem: async ({ auth, params, body, headers }) => ({
    body: await updateItem(auth.companyId, params.type, body, new Date(), headers['if-match']),
  }),
  deleteDynadataItem: async ({ auth, params, headers }) => ({
    body: await deleteItem(auth.companyId, params.type, params._id, headers['if-match']),
  }),
  validateDynadataItem: async ({ auth, params, body }) => ({
    body: await validateItem(auth.companyId, params.type, body),
  }),
  getDynadataSchema: async ({ auth, params }) => ({ body: await typeSchema(auth.companyId, params.type) }),
  getDynadataLibrarySchema: async ({ auth, params }) => ({
    body: await librarySchema(auth.companyId, params.type, params.library),
  }),
  executeDynadataTypeFunction: ({ auth, params, body, requestId }) =>
    executeFunction({
      auth,
      requestId,
      typeName: params.type,
      functionName: params.functionName,
      input: body,
    }),
  executeDynadataItemFunction: ({ auth, params, body, requestId }) =>
    executeFunction({
      auth,
      requestId,
      typeName: params.type,
      itemId: params._id,
      functionName: params.functionName,
      input: body,
    }),
});
