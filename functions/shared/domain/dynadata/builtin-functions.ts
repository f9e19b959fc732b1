import type * as z from '../../zod';
import { sendMessageBody } from '../messages/message-body';
import { sendMessageToContact } from '../messages/send-message';
import { countItems } from './count';
import { registerDynadataFunction } from './functions';
import { countInputSchema, type ListFilter } from './list-request';

/** The built-in functions of the registry (see `functions.ts`). Importing this module registers them. */
registerDynadataFunction({
  name: 'count',
  description:
    'Number of items of the type, optionally matching a list filter. A filtered count examines at most ' +
    '10 000 items per call: `{count, complete: false, cursor}` asks to call again with that cursor.',
  target: 'type',
  typeNames: '*',
  scope: 'dynadata:execute',
  // Getters: the schemas are built when a call first reads them, not when the module registers the functions.
  get input() {
    return countInputSchema();
  },
  run: async (input, ctx) => {
    const { filter, cursor } = input as { filter?: ListFilter; cursor?: string };
    return {
      body: { ...(await countItems(ctx.companyId, ctx.typeName, filter, cursor ? { cursor } : {})) },
    };
  },
});

registerDynadataFunction({
  name: 'sendMessage',
  description: 'Sends a message to this contact, as POST /v1/contacts/{contactId}/send_message does.',
  target: 'item',
  typeNames: ['contacts'],
  scope: 'dynadata:execute',
  // It sends a message, as send_message does: a credential without messages:send cannot send through it.
  alsoRequires: ['messages:send'],
  get input() {
    return sendMessageBody();
  },
  run: async (input, ctx) => ({
    status: 202,
    body: await sendMessageToContact(
      ctx.companyId,
      ctx.itemId ?? '',
      input as z.infer<ReturnType<typeof sendMessageBody>>,
      ctx.now,
    ),
  }),
});
