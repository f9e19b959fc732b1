import { spokenTextRequestSchema } from '../../speech-request';
import { spokenText } from '../../spoken-text';
import { defineAction } from './registry';

/** `actions/speech/spoken-text`: `POST /v1/spoken-text`, with the same input schema and refusals. */
export const speechSpokenText = defineAction({
  name: 'actions/speech/spoken-text',
  scope: 'speech:write',
  maxDurationMs: 5_000,
  get input() {
    return spokenTextRequestSchema();
  },
  run: (input) => spokenText(input.markdown, '/markdown'),
});
