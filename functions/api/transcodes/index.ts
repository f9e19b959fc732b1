import { createApiHandler } from '../../shared/http/middleware';
import * as transcodes from '../../shared/operations/transcodes';
import { TRANSCODE_ROUTES } from '../../shared/routes/transcode-routes';

export const handler = createApiHandler('transcodes', TRANSCODE_ROUTES, transcodes);
