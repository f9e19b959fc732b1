import { probeWithMediaConvert } from '../../shared/aws/mediaconvert';
import { createHandler } from '../../shared/pipeline/handler';
import { createTranscriptionWorker } from './worker';

/** Lambda entry of the transcription worker (probe, finalize, fail steps of the transcription machine). */
export const handler = createHandler(createTranscriptionWorker({ probe: probeWithMediaConvert }));
