import { probeWithMediaConvert } from '../../shared/aws/mediaconvert';
import { withObservability } from '../../shared/logger';
import { createTranscriptionWorker } from './worker';

/** Lambda entry of the transcription worker (probe, finalize, fail steps of the transcription machine). */
export const handler = withObservability(createTranscriptionWorker({ probe: probeWithMediaConvert }));
