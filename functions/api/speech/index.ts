import { spokenText } from '../../shared/domain/spoken-text';
import { createApiHandler } from '../../shared/http/middleware';

/** `POST /v1/speech` is declared in the route table and answers 501 until it is implemented. */
export const handler = createApiHandler('speech', {
  rewriteSpokenText: async ({ body }) => ({ body: await spokenText(body.markdown) }),
});
