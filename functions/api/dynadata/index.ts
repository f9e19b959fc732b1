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
import { refuseLogEntryWrites } from '../../shared/domain/dynadata/log-entry-guard';
import { librarySchema, typeSchema } from '../../shared/domain/dynadata/schemas';
import { listTypeSummaries } from '../../shared/domain/dynadata/types';
import { withIdempotency } from '../../shared/domain/idempotency';
import { createApiHandler } from '../../shared/http/middleware';

// Lists sign their cursors: without a configured key the function refuses to start.
assertCursorKeyConfigured();

export const handler = createApiHandler('dynadata', {
  listDynadataTypes: async ({ auth }) => ({
    body: { types: await listTypeSummaries(auth.companyId) },
  }),
  listDynadataItems: async ({ auth, params, body }) => ({
    body: await listItems(auth.companyId, params.type, body),
  }),
  getDynadataItem: async ({ auth, params }) => ({
    body: await getItem(auth.companyId, params.type, params._id),
  }),
  createDynadataItem: ({ auth, params, body, headers }) =>
    withIdempotency(
      auth.companyId,
      headers,
      { method: 'POST', path: `create/${params.type}`, body },
      async () => ({
        status: 201,
        body: await createItem(auth.companyId, params.type, body, new Date()),
      }),
    ),
  updateDynadataItem: async ({ auth, params, body }) => ({
    body: await updateItem(auth.companyId, params.type, body, new Date()),
  }),
  deleteDynadataItem: async ({ auth, params }) => ({
    body: await deleteItem(auth.companyId, params.type, params._id),
  }),
  validateDynadataItem: async ({ auth, params, body }) => ({
    body: await validateItem(auth.companyId, params.type, body),
  }),
  getDynadataSchema: async ({ auth, params }) => ({ body: await typeSchema(auth.companyId, params.type) }),
  getDynadataLibrarySchema: async ({ auth, params }) => ({
    body: await librarySchema(auth.companyId, params.type, params.library),
  }),
  executeDynadataTypeFunction: ({ auth, params, body, headers, requestId }) =>
    withIdempotency(
      auth.companyId,
      headers,
      { method: 'POST', path: `fn/${params.type}/${params.functionName}`, body },
      () =>
        executeFunction({
          auth,
          requestId,
          typeName: params.type,
          functionName: params.functionName,
          input: body,
        }),
    ),
  executeDynadataItemFunction: ({ auth, params, body, headers, requestId }) =>
    withIdempotency(
      auth.companyId,
      headers,
      { method: 'POST', path: `fn/${params.type}/${params._id}/${params.functionName}`, body },
      () =>
        executeFunction({
          auth,
          requestId,
          typeName: params.type,
          itemId: params._id,
          functionName: params.functionName,
          input: body,
        }),
    ),
}).use(refuseLogEntryWrites());
