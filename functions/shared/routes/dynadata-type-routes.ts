import { MAX_LIST_PAGE } from '../domain/pages';
import * as z from '../zod';
import * as dd from './dynadata-schemas';
import { route, typeParam } from './route-definition';
import { pageQuery, queryBoolean } from './schemas';

const ORDER_TYPE_SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 100 },
    amount: { type: 'number', minimum: 0 },
    status: { enum: ['open', 'paid', 'void'] },
  },
  required: ['title', 'amount'],
  additionalProperties: false,
  'x-indexed': ['amount'],
};

/** A custom type as GET and PUT answer it (the document's examples). */
export const ORDER_TYPE = {
  name: 'orders',
  description: 'Orders of the shop',
  schema: ORDER_TYPE_SCHEMA,
  functions: ['count'],
  builtIn: false,
  indexed: ['amount'],
  version: 2,
  status: 'active',
  deletedItems: 0,
  remainingItems: null,
  createdAt: '2026-11-02T09:15:00.000Z',
  updatedAt: '2026-11-20T16:40:00.000Z',
};

/**
 * The routes of Dynadata type definitions (group `dynadata`, with `dynadata-routes.ts`): list, read, define
 * and delete, one code path with the operator CLI (`domain/dynadata/type-admin.ts`). A section of the route
 * table.
 */
export const DYNADATA_TYPE_ROUTES = [
  route({
    method: 'GET',
    path: '/v1/dynadata/types',
    group: 'dynadata',
    operationId: 'listDynadataTypes',
    sdk: 'dynadata.types.list',
    summary: 'List all Dynadata types',
    tag: 'Dynadata',
    scope: 'dynadata:read',
    get query() {
      return z.object(pageQuery('Types', MAX_LIST_PAGE, MAX_LIST_PAGE));
    },
    get response() {
      return dd.listTypesResponse();
    },
    agent: {
      tool: 'list_dynadata_types',
      title: 'List Dynadata types',
      description: 'The Dynadata types of the company, built-in and custom, as GET /v1/dynadata/types.',
      effect: 'read',
    },
  }),
  route({
    method: 'GET',
    path: '/v1/dynadata/types/{type}',
    group: 'dynadata',
    operationId: 'getDynadataType',
    sdk: 'dynadata.types.get',
    etag: true,
    summary: 'A Dynadata type definition',
    description:
      'The definition of a type, built-in or custom: its JSON Schema (with `x-indexed`), its functions and ' +
      'its version, as PUT takes them. While DELETE with `deleteItems=true` deletes its items in the ' +
      'background, `status` is `deleting` with `deletedItems` and `remainingItems`; once the type is gone, 404. ' +
      "Another company's type answers 404 `not_found`.",
    tag: 'Dynadata',
    scope: 'dynadata:read',
    get params() {
      return typeParam();
    },
    get response() {
      return dd.typeDefinitionResponse();
    },
    errors: ['not_found'],
    examples: { response: { type: ORDER_TYPE } },
    agent: {
      tool: 'get_dynadata_type',
      title: 'Get a Dynadata type definition',
      description:
        'The definition of a type as GET /v1/dynadata/types/{type} shows it under `type`: JSON Schema (with ' +
        '`x-indexed`), functions, version and status.',
      effect: 'read',
      answer: 'type',
    },
  }),
  route({
    method: 'PUT',
    path: '/v1/dynadata/types/{type}',
    group: 'dynadata',
    operationId: 'putDynadataType',
    sdk: 'dynadata.types.put',
    answersEtag: 'type',
    ifMatch: true,
    summary: 'Define a Dynadata type',
    description:
      "Stores the definition (what the operator CLI's `types put` takes): 201 for a new type, 200 for a new " +
      'version, with `version` and an `ETag`. An invalid schema answers 400 `validation_failed` listing every ' +
      'violation by JSON pointer (`errors`). When the type has items and its schema changes, every stored ' +
      'item is checked against the new schema first: a change some would fail answers 409 ' +
      '`type_change_breaks_items` with their count (`breakingItems`) and a `sample` of up to 5 (`_id` and ' +
      'first violation); additive changes pass. `x-indexed` cannot change while the type has items. At most ' +
      "the plan's `dynadataTypes` per company (403 `dynadata_type_limit_reached`) and " +
      '`dynadataFieldsPerType` fields (403 `dynadata_field_limit_reached`). Built-in types are read-only ' +
      '(403 `builtin_type_read_only`). Honours If-Match with the ETag of GET; a concurrent change answers ' +
      '409 `conflict`.',
    tag: 'Dynadata',
    scope: 'dynadata:admin',
    get params() {
      return typeParam();
    },
    get body() {
      return dd.putTypeBody();
    },
    get response() {
      return dd.typeDefinitionResponse();
    },
    get alsoAnswers() {
      return [
        {
          status: 201,
          description: 'Created: the first version of a new type',
          response: dd.typeDefinitionResponse(),
        },
      ];
    },
    errors: [
      'builtin_type_read_only',
      'dynadata_type_limit_reached',
      'dynadata_field_limit_reached',
      'type_change_breaks_items',
      'type_deleting',
      'conflict',
    ],
    examples: {
      request: { description: 'Orders of the shop', schema: ORDER_TYPE_SCHEMA, functions: ['count'] },
      response: { type: ORDER_TYPE },
    },
    agent: {
      tool: 'put_dynadata_type',
      title: 'Define a Dynadata type',
      description:
        'Creates a type or stores the next version of its definition (`schema`, a JSON Schema with optional ' +
        '`x-indexed`; `description`; `functions`), as PUT /v1/dynadata/types/{type}. A change stored items ' +
        'would fail is refused with `type_change_breaks_items` and a sample of them.',
      effect: 'update',
      answer: 'type',
    },
  }),
  route({
    method: 'DELETE',
    path: '/v1/dynadata/types/{type}',
    group: 'dynadata',
    operationId: 'deleteDynadataType',
    sdk: 'dynadata.types.delete',
    ifMatch: true,
    summary: 'Delete a Dynadata type',
    description:
      'Deletes a custom type. While it has items this answers 409 `type_has_items` (with `itemCount`) unless ' +
      '`deleteItems=true`: the type is then marked `deleting` (its items become read-only) and answers 202 ' +
      '`deleting` while its items are deleted in the background (GET on the type shows `deletedItems` and ' +
      '`remainingItems`, then 404 once it is gone; repeating the request answers the progress). A type ' +
      'without items is deleted at once: 200 `deleted`. Built-in types are read-only (403 ' +
      '`builtin_type_read_only`). Honours If-Match with the ETag of GET.',
    tag: 'Dynadata',
    scope: 'dynadata:admin',
    get params() {
      return typeParam();
    },
    get query() {
      return z.object({
        deleteItems: queryBoolean('Delete the items of the type too (default false).'),
      });
    },
    get response() {
      return dd.deleteTypeResponse();
    },
    get alsoAnswers() {
      return [
        {
          status: 202,
          description: 'The type is `deleting`: its items are being deleted in the background',
          response: dd.deleteTypeResponse(),
        },
      ];
    },
    errors: ['not_found', 'builtin_type_read_only', 'type_has_items', 'conflict'],
    examples: {
      response: { deleted: true, name: 'orders', status: 'deleted', deletedItems: 42, remainingItems: 0 },
    },
  }),
] as const;
