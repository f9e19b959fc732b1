import * as z from '../../../zod';
import { spokenText } from '../../spoken-text';
import { defineAction } from './registry';

/** `actions/speech/spoken-text`: `POST /v1/spoken-text`. */
export const speechSpokenText = defineAction({
  name: 'actions/speech/spoken-text',
  scope: 'speech:write',
  maxDurationMs: 5_000,
  input: z.object({ markdown: z.string().max(8000) }).strict(),
  run: (input) => spokenText(input.markdown),
});
