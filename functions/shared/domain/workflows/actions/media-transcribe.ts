import { TRANSCRIPTION_LANGUAGES } from '../../../types/transcriptions';
import * as z from '../../../zod';
import { enqueueTranscription, toPublicTranscription } from '../../transcriptions';
import { defineAction } from './registry';

/** `actions/media/transcribe`: the very same job as `POST /v1/transcriptions`. */
export const mediaTranscribe = defineAction({
  name: 'actions/media/transcribe',
  scope: 'transcriptions:write',
  maxDurationMs: 5_000,
  get input() {
    return z
      .object({
        fullPath: z.string().min(1),
        bucket: z.string().optional(),
        language: z.enum([...TRANSCRIPTION_LANGUAGES, 'auto']).optional(),
      })
      .strict();
  },
  run: async (input, ctx) => ({
    job: toPublicTranscription(await enqueueTranscription(ctx.companyId, input, ctx.now)),
  }),
});
