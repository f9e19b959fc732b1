import { writeBatch } from '../domain/dynadata/batch';
import { executeFunction } from '../domain/dynadata/execute-function';
import { createItem, deleteItem, updateItem, upsertItem, validateItem } from '../domain/dynadata/items';
import { listItems } from '../domain/dynadata/list';
import { getProjectedItem } from '../domain/dynadata/projection';
import { librarySchema, typeSchema } from '../domain/dynadata/schemas';
import { getTypeDefinition, putType, TYPE_CHANGE_CHECK_BUDGET_MS } from '../domain/dynadata/type-admin';
import { deleteType } from '../domain/dynadata/type-deletion';
import { typeSummaryPage } from '../domain/dynadata/types';
import type { RouteHandler } from '../http/router';
import { workflowHopOf } from '../workflow-hops';

/**
 * What each operation of Dynadata does: the group's routes, its MCP tools and its workflow actions. The route
 * table switches on the log-entry guard (create, update, delete) and `Idempotency-Key`; every door applies both.
 */
export const listDynadataTypes: RouteHandler<'listDynadataTypes'> = async ({ auth, query }) => ({
  body: await typeSummaryPage(auth.companyId, query),
});
export const getDynadataType: RouteHandler<'getDynadataType'> = async ({ auth, params }) => ({
  body: { type: await getTypeDefinition(auth.companyId, params.type) },
});
export const putDynadataType: RouteHandler<'putDynadataType'> = async ({
  auth,
  params,
  body,
  headers,
  now,
}) => {
  const saved = await putType(
    auth.companyId,
    {
      name: params.type,
      description: body.description ?? '',
      schema: body.schema,
      functions: body.functions ?? [],
    },
    now,
    {
      ifMatch: headers['if-match'],
      pointers: { schema: '/body/schema', functions: '/body/functions' },
      checkBudgetMs: TYPE_CHANGE_CHECK_BUDGET_MS,
    },
  );
  // The answer carries the tag GET answers for this version (`answersEtag`), for a next If-Match.
  return { status: saved.created ? 201 : 200, body: { type: saved.type } };
};
export const deleteDynadataType: RouteHandler<'deleteDynadataType'> = async ({
  auth,
  params,
  query,
  headers,
  now,
}) => {
  const deletion = await deleteType(
    auth.companyId,
    params.type,
    { deleteItems: query.deleteItems ?? false, ifMatch: headers['if-match'] },
    now,
  );
  // 202: the items go in the background; the type's GET shows how far.
  const deleting = deletion.status === 'deleting';
  return { status: deleting ? 202 : 200, body: { deleted: !deleting, ...deletion } };
};
export const listDynadataItems: RouteHandler<'listDynadataItems'> = async ({ auth, params, body }) => ({
  body: await listItems(auth.companyId, params.type, body),
});
export const getDynadataItem: RouteHandler<'getDynadataItem'> = async ({ auth, params, query }) => {
  const { body, etag } = await getProjectedItem(auth.companyId, params.type, params._id, query.fields);
  // The tag of the whole stored item, also when `fields` projects it: `If-Match` names the stored item.
  return { body, headers: { etag } };
};
export const createDynadataItem: RouteHandler<'createDynadataItem'> = async ({
  auth,
  params,
  body,
  headers,
  now,
}) => ({
  body: await createItem(auth.companyId, params.type, body, now, { hop: workflowHopOf(headers) }),
});
export const updateDynadataItem: RouteHandler<'updateDynadataItem'> = async ({
  auth,
  params,
  body,
  headers,
  now,
}) => ({
  body: await updateItem(auth.companyId, params.type, body, now, headers['if-match'], {
    hop: workflowHopOf(headers),
  }),
});
export const deleteDynadataItem: RouteHandler<'deleteDynadataItem'> = async ({
  auth,
  params,
  headers,
  now,
}) => {
  const { deleted, _id } = await deleteItem(auth.companyId, params.type, params._id, headers['if-match'], {
    hop: workflowHopOf(headers),
    now,
  });
  return { body: { deleted, _id } };
};
export const upsertDynadataItem: RouteHandler<'upsertDynadataItem'> = async ({
  auth,
  params,
  body,
  headers,
  now,
}) => {
  const { created, item } = await upsertItem(auth.companyId, params.type, params._id, body, now, {
    hop: workflowHopOf(headers),
    ifMatch: headers['if-match'],
    ifNoneMatch: headers['if-none-match'],
  });
  // The answer carries the tag GET answers for this version (`answersEtag`), for a next If-Match.
  return { status: created ? 201 : 200, body: item };
};
export const batchDynadataItems: RouteHandler<'batchDynadataItems'> = async ({
  auth,
  params,
  body,
  headers,
  now,
}) => ({
  body: await writeBatch(auth.companyId, params.type, body, {
    now,
    hop: workflowHopOf(headers),
    apiRequestsPerMonth: auth.apiRequestsPerMonth,
  }),
});
export const validateDynadataItem: RouteHandler<'validateDynadataItem'> = async ({ auth, params, body }) => ({
  body: await validateItem(auth.companyId, params.type, body),
});
export const getDynadataSchema: RouteHandler<'getDynadataSchema'> = async ({ auth, params }) => ({
  body: await typeSchema(auth.companyId, params.type),
});
export const getDynadataLibrarySchema: RouteHandler<'getDynadataLibrarySchema'> = async ({
  auth,
  params,
}) => ({
  body: await librarySchema(auth.companyId, params.type, params.library),
});
export const executeDynadataTypeFunction: RouteHandler<'executeDynadataTypeFunction'> = ({
  auth,
  params,
  body,
  requestId,
}) =>
  executeFunction({ auth, requestId, typeName: params.type, functionName: params.functionName, input: body });
export const executeDynadataItemFunction: RouteHandler<'executeDynadataItemFunction'> = ({
  auth,
  params,
  body,
  requestId,
}) =>
  executeFunction({
    auth,
    requestId,
    typeName: params.type,
    itemId: params._id,
    functionName: params.functionName,
    input: body,
  });
