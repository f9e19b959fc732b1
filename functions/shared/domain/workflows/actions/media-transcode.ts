import { TRANSCODE_PRESETS } from '../../../types/transcodes';
import * as z from '../../../zod';
import { enqueueTranscode, toPublicJob } from '../../transcodes';
import { defineAction } from './registry';

/** `actions/media/transcode`: the very same job as `POST /v1/transcodes` (presets, limits, quota, queue). */
export const mediaTranscode = defineAction({
  name: 'actions/media/transcode',
  scope: 'transcodes:write',
  maxDurationMs: 5_000,
  get input() {
    return z
      .object({
        fullPath: z.string().min(1),
        bucket: z.string().optional(),
        preset: z.enum(TRANSCODE_PRESETS),
      })
      .strict();
  },
  run: async (input, ctx) => ({ job: toPublicJob(await enqueueTranscode(ctx.companyId, input, ctx.now)) }),
});
