import { probeWithMediaConvert } from '../../shared/aws/mediaconvert';
import { withObservability } from '../../shared/logger';
import { createTranscodeWorker } from './worker';

/** Lambda entry of the transcode worker (probe, finalize, fail steps of the transcode state machine;
 * progress events of its MediaConvert jobs). */
export const handler = withObservability(createTranscodeWorker({ probe: probeWithMediaConvert }));
