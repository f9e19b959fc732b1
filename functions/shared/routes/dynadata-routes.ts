import { identifierField } from '../fields';
import * as z from '../zod';
import * as dd from './dynadata-schemas';
import { itemParams, route, typeParam } from './route-definition';

const AREA = { group: 'dynadata', tag: 'Dynadata' } as const; // the group and tag of every route here

/**
 * The routes of Dynadata items, schemas and functions (group `dynadata`, with `dynadata-type-routes.ts`): a
 * section of `ROUTES` (`route-table.ts`), imported alone by the group's function, so its bundle holds only these.
 */
export const DYNADATA_ROUTES = [
  route({
    method: 'POST',
    path: '/v1/dynadata/type/{type}/list',
    ...AREA,
    operationId: 'listDynadataItems',
    sdk: 'dynadata.items(type).list',
    summary: 'List items of a type',
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
        'One page of items of a type, as POST /v1/dynadata/type/{type}/list: optional filter (with `_and`, ' +
        '`_or`, `_not` groups), fields, sort, limit (1 to 100) and the `nextCursor` of the previous page.',
      effect: 'read',
    },
    workflow: { action: 'actions/dynadata/list', maxDurationMs: 8_000 },
  }),
  route({
    method: 'GET',
    path: '/v1/dynadata/type/{type}/item/{_id}',
    ...AREA,
    operationId: 'getDynadataItem',
    sdk: 'dynadata.items(type).get',
    etag: true,
    summary: 'Retrieve one item',
    scope: 'dynadata:read',
    get params() {
      return itemParams();
    },
    get query() {
      return dd.itemFieldsQuery();
    },
    get response() {
      return dd.dynadataItemSchema();
    },
    errors: ['not_found'],
    inputNames: { _id: 'id' },
    agent: {
      tool: 'get_dynadata_item',
      title: 'Get a Dynadata item',
      description:
        'One item by `_id` (given as `id`), as GET /v1/dynadata/type/{type}/item/{_id}; `fields` ' +
        '(comma-separated) answers only those fields besides the system fields.',
      effect: 'read',
    },
    workflow: { action: 'actions/dynadata/get', maxDurationMs: 5_000 },
  }),
  route({
    method: 'POST',
    path: '/v1/dynadata/type/{type}/create',
    ...AREA,
    operationId: 'createDynadataItem',
    sdk: 'dynadata.items(type).create',
    answersEtag: true,
    summary: 'Create an item',
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
    ...AREA,
    operationId: 'updateDynadataItem',
    sdk: 'dynadata.items(type).update',
    answersEtag: true,
    ifMatch: true,
    summary: 'Update an existing item',
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
    ...AREA,
    operationId: 'deleteDynadataItem',
    sdk: 'dynadata.items(type).delete',
    ifMatch: true,
    summary: 'Delete an item',
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
    method: 'PUT',
    path: '/v1/dynadata/type/{type}/item/{_id}',
    ...AREA,
    operationId: 'upsertDynadataItem',
    sdk: 'dynadata.items(type).upsert',
    answersEtag: true,
    ifMatch: true,
    createOnlyIfNoneMatch: true,
    summary: 'Create or replace an item with your own id',
    description:
      'Creates the item with the `_id` of the path (201) or replaces the whole item (200: its fields become ' +
      'the body’s, validated as a whole; `_version` +1). `If-None-Match: *` creates only and `If-Match` ' +
      'replaces only (412 `precondition_failed` otherwise); `_version` in the body is checked like an ' +
      'update’s (409 `conflict`). Answers the item with its `ETag`. A safe retry: the same body twice leaves ' +
      'one item.',
    scope: 'dynadata:write',
    idempotency: 'repeatable',
    get params() {
      return dd.upsertItemParams();
    },
    get body() {
      return dd.itemFieldsBody();
    },
    get response() {
      return dd.dynadataItemSchema();
    },
    get alsoAnswers() {
      return [{ status: 201, description: 'Created: the item is new', response: dd.dynadataItemSchema() }];
    },
    writesItemsOfType: true,
    errors: ['not_found', 'forbidden', 'payload_too_large', 'invalid_storage_reference', 'conflict'],
    examples: {
      request: { name: 'Ada Lovelace', emails: [{ label: 'work', address: 'ada@example.org' }] },
      response: {
        _id: 'crm-1042',
        _version: 3,
        createdAt: '2026-11-02T09:15:00.000Z',
        updatedAt: '2026-11-20T16:40:00.000Z',
        name: 'Ada Lovelace',
        emails: [{ label: 'work', address: 'ada@example.org' }],
      },
    },
    documented: { body: 'item-fields' },
    payload: 'item',
    inputNames: { _id: 'id' },
    agent: {
      tool: 'upsert_dynadata_item',
      title: 'Create or replace a Dynadata item by id',
      description:
        'Creates the item `id` or replaces it whole with `item`, as PUT /v1/dynadata/type/{type}/item/{_id}: ' +
        'retrying it is safe.',
      effect: 'update',
    },
    workflow: { action: 'actions/dynadata/upsert', maxDurationMs: 5_000 },
  }),
  route({
    method: 'POST',
    path: '/v1/dynadata/type/{type}/batch',
    ...AREA,
    operationId: 'batchDynadataItems',
    sdk: 'dynadata.items(type).batch',
    summary: 'Write several items at once',
    description:
      'Up to 100 operations (`create`, `update`, `upsert`, `delete`) on items of the type, in order, each as ' +
      'its own route would do it and raising the same change event. By default each is written on its own ' +
      'and answers a result (status, `_id`, `_version`, `problem`); `atomic: true` writes all or nothing ' +
      '(at most 49 operations, each item once): the first refused operation answers its problem with ' +
      '`operation` (its index) and nothing is written. Counts one API request per operation.',
    scope: 'dynadata:write',
    idempotency: 'keyed',
    get params() {
      return typeParam();
    },
    get body() {
      return dd.batchItemsBody();
    },
    get response() {
      return dd.batchItemsResponse();
    },
    writesItemsOfType: true,
    errors: ['not_found', 'forbidden', 'payload_too_large', 'invalid_storage_reference', 'conflict'],
    examples: {
      request: {
        operations: [
          { op: 'create', item: { name: 'Ada Lovelace' } },
          { op: 'upsert', _id: 'crm-1042', item: { name: 'Grace Hopper' } },
          { op: 'delete', _id: '01JD3XQ0E5G7J9L1N3P5R7T9V1' },
        ],
      },
      response: {
        atomic: false,
        results: [
          { op: 'create', status: 201, _id: '01JD3XQ0E5G7J9L1N3P5R7T9V2', _version: 1, problem: null },
          { op: 'upsert', status: 200, _id: 'crm-1042', _version: 4, problem: null },
          {
            op: 'delete',
            status: 404,
            _id: '01JD3XQ0E5G7J9L1N3P5R7T9V1',
            _version: null,
            problem: {
              type: 'urn:problem-type:not_found',
              title: 'Not found',
              status: 404,
              code: 'not_found',
              detail: 'There is no contacts item 01JD3XQ0E5G7J9L1N3P5R7T9V1.',
              operation: 2,
            },
          },
        ],
        written: 2,
        failed: 1,
      },
    },
    agent: {
      tool: 'batch_dynadata_items',
      title: 'Write several Dynadata items at once',
      description:
        'Up to 100 create, update, upsert and delete operations on items of a type, as POST ' +
        '/v1/dynadata/type/{type}/batch; `atomic: true` for all or nothing (49 at most).',
      effect: 'update',
    },
    workflow: { action: 'actions/dynadata/batch', maxDurationMs: 20_000 },
  }),
  route({
    method: 'POST',
    path: '/v1/dynadata/type/{type}/validate',
    ...AREA,
    operationId: 'validateDynadataItem',
    sdk: 'dynadata.items(type).validate',
    summary: 'Validate an item without saving it',
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
    ...AREA,
    operationId: 'getDynadataSchema',
    sdk: 'dynadata.types.getSchema',
    summary: 'JSON Schema of a type',
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
    ...AREA,
    operationId: 'getDynadataLibrarySchema',
    sdk: 'dynadata.types.getLibrarySchema',
    summary: 'Schema of a type in a validation-library format',
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
    ...AREA,
    operationId: 'executeDynadataTypeFunction',
    sdk: 'dynadata.types.executeFunction',
    summary: 'Execute a function on a type',
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
    ...AREA,
    operationId: 'executeDynadataItemFunction',
    sdk: 'dynadata.items(type).executeFunction',
    summary: 'Execute a function on one item',
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
