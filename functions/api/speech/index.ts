import { speechVoices, synthesizeSpeech } from '../../shared/domain/speech';
import { spokenText } from '../../shared/domain/spoken-text';
import { createApiHandler } from '../../shared/http/middleware';
import { SPEECH_ROUTES } from '../../shared/routes/speech-routes';

export const handler = createApiHandler('speech', SPEECH_ROUTES, {
  synthesizeSpeech: async ({ auth, body }) => ({
    body: await synthesizeSpeech(auth.companyId, body, auth.storageBytesLimit, new Date()),
  }),
  listSpeechVoices: async () => ({ body: speechVoices() }),
  rewriteSpokenText: async ({ body }) => ({ body: await spokenText(body.markdown) }),
});
