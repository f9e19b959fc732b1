import { createHandler } from '../../shared/pipeline/handler';
import { createSpeechJobWorker } from './worker';

/** Lambda entry of the speech job worker (prepare, finalize, fail steps of the speech-job machine). */
export const handler = createHandler(createSpeechJobWorker());
