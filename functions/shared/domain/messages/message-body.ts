import { lazy } from '../../lazy';
import * as z from '../../zod';
import { MAX_BUCKET_NAME_LENGTH, MAX_FULL_PATH_BYTES } from '../storage-limits';

/** A message to send: its kind and content. send_message and the contacts `sendMessage` function both take it. */
const storageReference = /* @__PURE__ */ lazy(() =>
  z
    .object({
      bucket: z
        .string()
        .max(MAX_BUCKET_NAME_LENGTH)
        .optional()
        .describe('Platform bucket; defaults to it when absent.'),
      fullPath: z
        .string()
        .min(1)
        .max(MAX_FULL_PATH_BYTES)
        .describe('Path of one of your files, under `companies/<companyId>/`.'),
    })
    .strict(),
);

const fileBody = /* @__PURE__ */ lazy(() =>
  z
    .object({
      file: storageReference(),
      caption: z.string().max(1024).optional(),
      filename: z.string().min(1).max(255).optional(),
    })
    .strict(),
);

/** When to send it: absent (or not ahead of now) sends it at once. */
const sendAtField = () =>
  z.iso
    .datetime({ offset: true })
    .max(64)
    .optional()
    .describe(
      'Send the message later, at this time (ISO 8601), up to 30 days ahead; it is stored `scheduled` until ' +
        'then and may be canceled. A time up to a minute in the past sends it at once; earlier, or more than ' +
        '30 days ahead, is 400 `send_at_out_of_range`.',
    );

export const sendMessageBody = /* @__PURE__ */ lazy(() =>
  z
    .discriminatedUnion('type', [
      z.strictObject({
        type: z.literal('text'),
        body: z.strictObject({ text: z.string().min(1).max(4096) }),
        sendAt: sendAtField(),
      }),
      z.strictObject({ type: z.literal('image'), body: fileBody(), sendAt: sendAtField() }),
      z.strictObject({ type: z.literal('audio'), body: fileBody(), sendAt: sendAtField() }),
      z.strictObject({ type: z.literal('video'), body: fileBody(), sendAt: sendAtField() }),
      z.strictObject({ type: z.literal('document'), body: fileBody(), sendAt: sendAtField() }),
    ])
    .describe(
      '`text`: `{text}` (1–4096 characters); `image`, `audio`, `video`, `document`: `{file, caption?, filename?}`; ' +
        '`sendAt` to send it later.',
    ),
);

export type SendMessageBody = z.infer<ReturnType<typeof sendMessageBody>>;
