import { createApiHandler } from '../../shared/http/middleware';
import * as speech from '../../shared/operations/speech';
import { SPEECH_JOB_ROUTES } from '../../shared/routes/speech-job-routes';
import { SPEECH_ROUTES } from '../../shared/routes/speech-routes';

export const handler = createApiHandler('speech', [...SPEECH_ROUTES, ...SPEECH_JOB_ROUTES], speech);
