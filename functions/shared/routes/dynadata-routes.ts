import { identifierField } from '../fields';
import * as z from '../zod';
import * as dd from './dynadata-schemas';
import { itemParams, route, typeParam } from './route-definition';

/**
 * The routes of Dynadata items, schemas and functions (group `dynadata`, with `dynadata-type-routes.ts`): a section of the route table
 * (`route-table.ts` joins the sections into `ROUTES`), imported alone by the group's function, so its bundle
 * holds only its own routes.
 */
export const DYNADATA_ROUTES = [
  route({
    method: 'POST',
    path: '/v1/dynadata/type/{type}/list',
    group: 'dynadata',
    operationId: 'listDynadataItems',
    summary: 'List items of a type',
    tag: 'Dynadata',
    scope: 'dynadata:read',
    idempotency: 'repeatable',
    get params() {
      return typeParam();
    },
    get body() {
      return dd.listItemsBody();
    },
    get response() {
      return dd.listItemsResponse();
    },
    errors: ['not_found'],
    examples: {
      request: { filter: { name: { prefix: 'Ada' } }, sort: { field: '_id', order: 'desc' }, limit: 25 },
    },
    agent: {
      tool: 'list_dynadata_items',
      title: 'List items of a Dynadata type',
      description:
        'One page of items of a type, as POST /v1/dynadata/type/{type}/list: optional filter, sort, limit ' +
        '(1 to 100) and the `nextCursor` of the previous page.',
      effect: 'read',
    },
    workflow: { action: 'actions/dynadata/list', maxDurationMs: 8_000 },
  }),
  route({
    method: 'GET',
    path: '/v1/dynadata/type/{type}/item/{_id}',
    group: 'dynadata',
    operationId: 'getDynadataItem',
    etag: true,
    summary: 'Retrieve one item',
    tag: 'Dynadata',
    scope: 'dynadata:read',
    get params() {
      return itemParams();
    },
    get response() {
      return dd.dynadataItemSchema();
    },
    errors: ['not_found'],
    inputNames: { _id: 'id' },
    agent: {
      tool: 'get_dynadata_item',
      title: 'Get a Dynadata item',
      description: 'One item by `_id` (given as `id`), as GET /v1/dynadata/type/{type}/item/{_id}.',
      effect: 'read',
    },
    workflow: { action: 'actions/dynadata/get', maxDurationMs: 5_000 },
  }),
  route({
    method: 'POST',
    path: '/v1/dynadata/type/{type}/create',
    group: 'dynadata',
    operationId: 'createDynadataItem',
    summary: 'Create an item',
    tag: 'Dynadata',
    scope: 'dynadata:write',
    get params() {
      return typeParam();
    },
    get body() {
      return dd.itemFieldsBody();
    },
    get response() {
      return dd.dynadataItemSchema();
    },
    successStatus: 201,
    idempotency: 'keyed',
    writesItemsOfType: true,
    errors: ['not_found', 'forbidden', 'payload_too_large', 'invalid_storage_reference', 'conflict'],
    examples: { request: { name: 'Ada Lovelace', emails: [{ label: 'work', address: 'ada@example.org' }] } },
    documented: { body: 'item-fields' },
    payload: 'item',
    agent: {
      tool: 'create_dynadata_item',
      title: 'Create a Dynadata item',
      description:
        'Creates an item from its fields (`item`, as the type schema describes them), as POST ' +
        '/v1/dynadata/type/{type}/create. `log_entries` is read-only.',
      effect: 'create',
    },
    workflow: { action: 'actions/dynadata/create', maxDurationMs: 5_000 },
  }),
  route({
    method: 'POST',
    path: '/v1/dynadata/type/{type}/update',
    group: 'dynadata',
    operationId: 'updateDynadataItem',
    ifMatch: true,
    summary: 'Update an existing item',
    tag: 'Dynadata',
    scope: 'dynadata:write',
    idempotency: 'keyed',
    get params() {
      return typeParam();
    },
    get body() {
      return dd.updateItemBody();
    },
    get response() {
      return dd.dynadataItemSchema();
    },
    writesItemsOfType: true,
    errors: ['not_found', 'forbidden', 'payload_too_large', 'invalid_storage_reference', 'conflict'],
    payload: 'item',
    agent: {
      tool: 'update_dynadata_item',
      title: 'Update a Dynadata item',
      description:
        'A JSON merge patch of an item (`item._id` names it; `item._version` detects races), as POST ' +
        '/v1/dynadata/type/{type}/update. `log_entries` is read-only.',
      effect: 'update',
    },
    workflow: { action: 'actions/dynadata/update', maxDurationMs: 5_000 },
  }),
  route({
    method: 'DELETE',
    path: '/v1/dynadata/type/{type}/item/{_id}',
    group: 'dynadata',
    operationId: 'deleteDynadataItem',
    ifMatch: true,
    summary: 'Delete an item',
    tag: 'Dynadata',
    scope: 'dynadata:write',
    get params() {
      return itemParams();
    },
    get response() {
      return dd.deleteItemResponse();
    },
    writesItemsOfType: true,
    errors: ['not_found', 'forbidden', 'conflict'],
    inputNames: { _id: 'id' },
    agent: {
      tool: 'delete_dynadata_item',
      title: 'Delete a Dynadata item',
      description:
        'Deletes an item (`id`: its `_id`), as DELETE /v1/dynadata/type/{type}/item/{_id}. `log_entries` is ' +
        'read-only.',
      effect: 'delete',
    },
    workflow: { action: 'actions/dynadata/delete', maxDurationMs: 5_000 },
  }),
  route({
    method: 'POST',
    path: '/v1/dynadata/type/{type}/validate',
    group: 'dynadata',
    operationId: 'validateDynadataItem',
    summary: 'Validate an item without saving it',
    tag: 'Dynadata',
    scope: 'dynadata:read',
    idempotency: 'repeatable',
    get params() {
      return typeParam();
    },
    get body() {
      return dd.itemFieldsBody();
    },
    get response() {
      return dd.validateItemResponse();
    },
    errors: ['not_found', 'invalid_storage_reference'],
    documented: { body: 'item-fields' },
  }),
  route({
    method: 'GET',
    path: '/v1/dynadata/type/{type}/schema',
    group: 'dynadata',
    operationId: 'getDynadataSchema',
    summary: 'JSON Schema of a type',
    tag: 'Dynadata',
    scope: 'dynadata:read',
    get params() {
      return typeParam();
    },
    get response() {
      return dd.jsonSchemaResponse();
    },
    errors: ['not_found'],
  }),
  route({
    method: 'GET',
    path: '/v1/dynadata/type/{type}/schema/{library}',
    group: 'dynadata',
    operationId: 'getDynadataLibrarySchema',
    summary: 'Schema of a type in a validation-library format',
    tag: 'Dynadata',
    scope: 'dynadata:read',
    get params() {
      return typeParam().extend({
        library: z.string().min(1).max(32).describe('Lowercase name of the validation library, e.g. `zod`.'),
      });
    },
    get response() {
      return dd.librarySchemaResponse();
    },
    errors: ['not_found'],
  }),
  route({
    method: 'POST',
    path: '/v1/dynadata/type/{type}/executeFunction/{functionName}',
    group: 'dynadata',
    operationId: 'executeDynadataTypeFunction',
    summary: 'Execute a function on a type',
    tag: 'Dynadata',
    scope: 'dynadata:execute',
    idempotency: 'keyed',
    get params() {
      return typeParam().extend({ functionName: identifierField('Name of the function.') });
    },
    get body() {
      return dd.executeFunctionBody();
    },
    get response() {
      return dd.executeFunctionResponse();
    },
    errors: ['not_found', 'invalid_storage_reference'],
    get documented() {
      return dd.executeFunctionDocumented();
    },
    examples: {
      request: { filter: { name: { prefix: 'Ada' } } },
      response: { count: 3, complete: true, cursor: null },
    },
  }),
  route({
    method: 'POST',
    path: '/v1/dynadata/type/{type}/item/{_id}/executeFunction/{functionName}',
    group: 'dynadata',
    operationId: 'executeDynadataItemFunction',
    summary: 'Execute a function on one item',
    tag: 'Dynadata',
    scope: 'dynadata:execute',
    idempotency: 'keyed',
    get params() {
      return itemParams().extend({ functionName: identifierField('Name of the function.') });
    },
    get body() {
      return dd.executeFunctionBody();
    },
    get response() {
      return dd.executeFunctionResponse();
    },
    errors: ['not_found', 'invalid_storage_reference', 'send_at_out_of_range'],
    get documented() {
      return dd.executeFunctionDocumented();
    },
  }),
] as const;
