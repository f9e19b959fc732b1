import { createApiHandler } from '../../shared/http/middleware';
import * as transcriptions from '../../shared/operations/transcriptions';
import { TRANSCRIPTION_ROUTES } from '../../shared/routes/transcription-routes';

export const handler = createApiHandler('transcriptions', TRANSCRIPTION_ROUTES, transcriptions);
