import { countAnswerSchema, countInputSchema, listRequestSchema } from '../domain/dynadata/list-request';
import { sendMessageBody } from '../domain/messages/message-body';
import { identifierField, timestampField } from '../fields';
import { lazy } from '../lazy';
import { MAX_ATOMIC_BATCH_OPERATIONS, MAX_BATCH_OPERATIONS } from '../types/dynadata-types';
import * as z from '../zod';
import { deletedAnswer, nextCursorSchema } from './schemas';

export { sendMessageBody } from '../domain/messages/message-body';

/** Request and response bodies of the Dynadata and messaging routes (they become the OpenAPI document). */

const fieldError = /* @__PURE__ */ lazy(() =>
  z.object({
    pointer: z.string().describe('JSON pointer into the request, rooted at `/body`.'),
    message: z.string(),
  }),
);

export const dynadataItemSchema = /* @__PURE__ */ lazy(() =>
  z
    .looseObject({
      _id: z
        .string()
        .describe(
          'Server-generated id, sorting by creation time: a ULID (26 characters, lowercase), or, for the ' +
            'built-in `log_entries`, `<epoch milliseconds, 15 digits>-<requestId>` (the time the request was ' +
            'received and its `x-request-id`).',
        ),
      _version: z
        .number()
        .int()
        .describe('1 at creation, +1 per update; send it with an update to detect races.'),
      createdAt: timestampField(),
      updatedAt: timestampField(),
    })
    .describe('An item: the system fields plus the fields of its type (see the type schema).'),
);

export const dynadataTypeSummarySchema = /* @__PURE__ */ lazy(() =>
  z.object({
    name: z.string().describe('Type name: lowercase letters, digits and `_`.'),
    description: z.string(),
    builtIn: z.boolean().describe('`contacts`, `messages` and `log_entries` are built in.'),
    writable: z.boolean().describe('Whether create, update and delete are allowed through the API.'),
    indexed: z.array(z.string()).describe('Fields the list endpoint can sort by, besides `_id`.'),
    functions: z.array(z.string()).describe('Functions available through executeFunction.'),
  }),
);

export const listTypesResponse = /* @__PURE__ */ lazy(() =>
  z.object({ types: z.array(dynadataTypeSummarySchema()), nextCursor: nextCursorSchema() }),
);

export const itemFieldsBody = /* @__PURE__ */ lazy(() =>
  z
    .record(z.string(), z.unknown())
    .describe('The fields of the item, as the type schema describes them (no system fields).'),
);

export const updateItemBody = /* @__PURE__ */ lazy(() =>
  z
    .looseObject({
      _id: identifierField('The item to update.'),
      _version: z
        .number()
        .int()
        .positive()
        .optional()
        .describe('Expected current version; a stale one answers 409 `conflict`.'),
    })
    .describe(
      'JSON merge patch (RFC 7396) of the item: fields present replace (objects merge), `null` removes a field. ' +
        'The merged item is validated as a whole.',
    ),
);

/** `PUT …/item/{_id}` answers the item it created (201) or replaced (200). */
export const upsertItemParams = /* @__PURE__ */ lazy(() =>
  z.object({
    type: identifierField('Dynadata type name.'),
    _id: identifierField(
      'The item’s id, chosen by the caller: letters, digits, `_` and `-`, starting with a letter or digit.',
    ),
  }),
);

export const batchItemsBody = /* @__PURE__ */ lazy(() =>
  z
    .object({
      operations: z
        .array(
          z.discriminatedUnion('op', [
            z.object({ op: z.literal('create'), item: itemFieldsBody() }).strict(),
            z.object({ op: z.literal('update'), item: updateItemBody() }).strict(),
            z
              .object({
                op: z.literal('upsert'),
                _id: upsertItemParams().shape._id,
                item: itemFieldsBody(),
                onlyIf: z
                  .enum(['absent', 'exists'])
                  .optional()
                  .describe(
                    '`absent`: create only; `exists`: replace only (as If-None-Match: * and If-Match).',
                  ),
              })
              .strict(),
            z
              .object({
                op: z.literal('delete'),
                _id: identifierField('The item to delete.'),
                _version: updateItemBody().shape._version,
              })
              .strict(),
          ]),
        )
        .min(1)
        .max(MAX_BATCH_OPERATIONS)
        .describe(`1 to ${MAX_BATCH_OPERATIONS} writes of items of the type, applied in order.`),
      atomic: z
        .boolean()
        .optional()
        .describe(
          `All or nothing (at most ${MAX_ATOMIC_BATCH_OPERATIONS} operations, each item once): the first ` +
            'operation refused answers its problem, with `operation` its index, and nothing is written. ' +
            'Default false: each operation on its own, a result for each.',
        ),
    })
    .strict()
    .describe('Writes of several items of one type.'),
);

const batchProblemSchema = /* @__PURE__ */ lazy(() =>
  z
    .looseObject({
      type: z.string(),
      title: z.string(),
      status: z.number().int(),
      code: z.string(),
      detail: z.string(),
      errors: z.array(fieldError()).optional(),
    })
    .describe('Why the operation was refused: the problem its own route would answer.'),
);

export const batchItemsResponse = /* @__PURE__ */ lazy(() =>
  z.object({
    atomic: z.boolean(),
    results: z
      .array(
        z.object({
          op: z.enum(['create', 'update', 'upsert', 'delete']),
          status: z
            .number()
            .int()
            .describe('The status the operation’s own route would answer: 201, 200, or the problem’s.'),
          _id: z.string().nullable(),
          _version: z
            .number()
            .int()
            .nullable()
            .describe('After the write (the deleted version, for a delete); null when refused.'),
          problem: batchProblemSchema().nullable(),
        }),
      )
      .describe('One result per operation, in order.'),
    written: z.number().int().describe('Operations written.'),
    failed: z.number().int().describe('Operations refused.'),
  }),
);

export const listItemsBody = listRequestSchema;

/** `?fields=a,b` of a get: the fields to answer besides the system fields. */
export const itemFieldsQuery = /* @__PURE__ */ lazy(() =>
  z.object({
    fields: z
      .string()
      .min(1)
      .max(2048)
      .optional()
      .describe(
        'Comma-separated field names: answer only these fields, besides `_id`, `_version`, `createdAt` and ' +
          '`updatedAt` (always answered). The `ETag` stays the tag of the whole item.',
      ),
  }),
);

export const listItemsResponse = /* @__PURE__ */ lazy(() =>
  z.object({
    items: z.array(dynadataItemSchema()),
    nextCursor: z
      .string()
      .nullable()
      .describe('Pass it as `cursor` for the next page; null on the last page.'),
  }),
);

export const deleteItemResponse = /* @__PURE__ */ lazy(() =>
  deletedAnswer({ _id: z.string().describe('The deleted item.') }),
);

export const validateItemResponse = /* @__PURE__ */ lazy(() =>
  z.object({
    valid: z.boolean(),
    errors: z.array(fieldError()).describe('Every violation, empty when valid.'),
  }),
);

export const jsonSchemaResponse = /* @__PURE__ */ lazy(() =>
  z
    .record(z.string(), z.unknown())
    .describe(
      'JSON Schema (draft 2020-12) of the fields of the type. Extension `x-document: true` marks a field ' +
        'holding a storage reference `{bucket?, fullPath}`; `x-indexed` lists sortable fields.',
    ),
);

export const librarySchemaResponse = /* @__PURE__ */ lazy(() =>
  z.object({
    type: z.string(),
    library: z.literal('zod').describe('Supported libraries: `zod`.'),
    source: z.string().describe('A zod 4 module exporting `schema`, equivalent to the JSON Schema.'),
  }),
);

export const executeFunctionBody = /* @__PURE__ */ lazy(() =>
  z
    .record(z.string(), z.unknown())
    .describe(
      'Input of the function. `count`: `{filter?, cursor?}` (the list filter; the cursor of an incomplete count). `sendMessage`: as send_message.',
    ),
);

export const executeFunctionResponse = /* @__PURE__ */ lazy(() =>
  z
    .record(z.string(), z.unknown())
    .describe(
      'Output of the function. `count`: `{count, complete, cursor}` (a filtered count examines at most 10 000 items per call; when `complete` is false, call again with `cursor`). `sendMessage`: `{messageId, status}`.',
    ),
);

export const sendMessageResponse = /* @__PURE__ */ lazy(() =>
  z.object({
    messageId: z.string().describe('`_id` of the stored message (type `messages`).'),
    status: z
      .enum(['queued', 'scheduled'])
      .describe(
        'Delivery runs asynchronously: `queued` → `sent` or `failed`; with `sendAt`, `scheduled` until then.',
      ),
    sendAt: timestampField().optional().describe('A scheduled message: when it is sent.'),
  }),
);

/** What the built-in functions take and answer, for the document (each function validates its own input). */
export const executeFunctionDocumented = /* @__PURE__ */ lazy(() => ({
  body: z.union([
    countInputSchema(),
    sendMessageBody().describe('`sendMessage` (contacts items): as send_message.'),
  ]),
  response: z.union([
    countAnswerSchema(),
    sendMessageResponse().describe('`sendMessage` answer: as send_message.'),
  ]),
}));

const typeDefinitionFields = {
  description: z.string().max(1_000).describe('What the type holds.'),
  schema: z
    .record(z.string(), z.unknown())
    .describe(
      'The JSON Schema (draft 2020-12, the subset `docs/dynadata-and-messaging.md` lists) of an item, with ' +
        '`x-indexed` naming up to three fields the list endpoint may sort by.',
    ),
  functions: z.array(identifierField('Function name.')).max(50).describe('Functions bound to the type.'),
};

/** The body of `PUT /v1/dynadata/types/{type}`: what the operator CLI's `types put` takes. */
export const putTypeBody = /* @__PURE__ */ lazy(() =>
  z
    .object({
      description: typeDefinitionFields.description.optional(),
      schema: typeDefinitionFields.schema,
      functions: typeDefinitionFields.functions.optional(),
    })
    .strict(),
);

export const typeDefinitionSchema = /* @__PURE__ */ lazy(() =>
  z.object({
    name: z.string().describe('Type name: lowercase letters, digits and `_`.'),
    ...typeDefinitionFields,
    builtIn: z.boolean().describe('`contacts`, `messages` and `log_entries` are built in and read-only.'),
    indexed: z.array(z.string()).describe('The `x-indexed` fields of the schema.'),
    version: z.number().int().nullable().describe('Bumped by every PUT; null for a built-in type.'),
    status: z
      .enum(['active', 'deleting'])
      .describe('`deleting`: DELETE with `deleteItems=true` is deleting its items; they are read-only.'),
    deletedItems: z.number().int().nonnegative().describe('Items deleted so far while `deleting`.'),
    remainingItems: z
      .number()
      .int()
      .nonnegative()
      .nullable()
      .describe('Items still to delete while `deleting`; null while `active`.'),
    createdAt: timestampField().nullable(),
    updatedAt: timestampField().nullable(),
  }),
);

export const typeDefinitionResponse = /* @__PURE__ */ lazy(() => z.object({ type: typeDefinitionSchema() }));

export const deleteTypeResponse = /* @__PURE__ */ lazy(() =>
  z.object({
    deleted: z
      .boolean()
      .describe(
        '`true` (200): the type is deleted; `false` (202): it is `deleting`, its items in the background.',
      ),
    name: z.string().describe('The type.'),
    status: z
      .enum(['deleted', 'deleting'])
      .describe(
        '`deleting` (202): the items are being deleted in the background; GET on the type shows how far, ' +
          'and answers 404 once it is gone.',
      ),
    deletedItems: z.number().int().nonnegative().describe('Items deleted with the type so far.'),
    remainingItems: z.number().int().nonnegative().describe('Items still to delete (0 once `deleted`).'),
  }),
);
