import { lazy } from '../../../lazy';
import * as z from '../../../zod';
import { createItem, deleteItem, getItem, updateItem } from '../../dynadata/items';
import { listItems } from '../../dynadata/list';
import { listRequestSchema } from '../../dynadata/list-request';
import { requireWritable, resolveType } from '../../dynadata/types';
import { defineAction } from './registry';

/**
 * `actions/dynadata/{create,update,get,delete,list}`: the Dynadata item routes. Writes to `log_entries` are
 * refused with `log_entry_writes_not_allowed` (the same check as the routes' guard, before any write).
 */
const typeName = /* @__PURE__ */ lazy(() => z.string().min(1).max(64));
const item = /* @__PURE__ */ lazy(() => z.record(z.string(), z.unknown()));

const refuseReadOnly = async (companyId: string, type: string) => {
  requireWritable(await resolveType(companyId, type));
};

export const dynadataCreate = defineAction({
  name: 'actions/dynadata/create',
  scope: 'dynadata:write',
  maxDurationMs: 5_000,
  get input() {
    return z.object({ type: typeName(), item: item() }).strict();
  },
  run: async (input, ctx) => {
    await refuseReadOnly(ctx.companyId, input.type);
    return createItem(ctx.companyId, input.type, input.item, ctx.now);
  },
});

export const dynadataUpdate = defineAction({
  name: 'actions/dynadata/update',
  scope: 'dynadata:write',
  maxDurationMs: 5_000,
  get input() {
    return z
      .object({ type: typeName(), item: item().and(z.object({ _id: z.string().min(1).max(64) })) })
      .strict();
  },
  run: async (input, ctx) => {
    await refuseReadOnly(ctx.companyId, input.type);
    return updateItem(ctx.companyId, input.type, input.item, ctx.now);
  },
});

export const dynadataGet = defineAction({
  name: 'actions/dynadata/get',
  scope: 'dynadata:read',
  maxDurationMs: 5_000,
  get input() {
    return z.object({ type: typeName(), id: z.string().min(1).max(64) }).strict();
  },
  run: (input, ctx) => getItem(ctx.companyId, input.type, input.id),
});

export const dynadataDelete = defineAction({
  name: 'actions/dynadata/delete',
  scope: 'dynadata:write',
  maxDurationMs: 5_000,
  get input() {
    return z.object({ type: typeName(), id: z.string().min(1).max(64) }).strict();
  },
  run: async (input, ctx) => {
    await refuseReadOnly(ctx.companyId, input.type);
    return deleteItem(ctx.companyId, input.type, input.id);
  },
});

export const dynadataList = defineAction({
  name: 'actions/dynadata/list',
  scope: 'dynadata:read',
  maxDurationMs: 8_000,
  get input() {
    return listRequestSchema().extend({ type: typeName() });
  },
  run: ({ type, ...request }, ctx) => listItems(ctx.companyId, type, request),
});
