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

export const sendMessageBody = /* @__PURE__ */ lazy(() =>
  z
    .discriminatedUnion('type', [
      z.strictObject({
        type: z.literal('text'),
        body: z.strictObject({ text: z.string().min(1).max(4096) }),
      }),
      z.strictObject({ type: z.literal('image'), body: fileBody() }),
      z.strictObject({ type: z.literal('audio'), body: fileBody() }),
      z.strictObject({ type: z.literal('video'), body: fileBody() }),
      z.strictObject({ type: z.literal('document'), body: fileBody() }),
    ])
    .describe(
      '`text`: `{text}` (1–4096 characters); `image`, `audio`, `video`, `document`: `{file, caption?, filename?}`.',
    ),
);

export type SendMessageBody = z.infer<ReturnType<typeof sendMessageBody>>;
