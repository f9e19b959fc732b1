import { probeWithMediaConvert } from '../../shared/aws/mediaconvert';
import { createHandler } from '../../shared/pipeline/handler';
import { createTranscodeWorker } from './worker';

/** Lambda entry of the transcode worker (probe, finalize, fail steps of the transcode state machine;
 * progress events of its MediaConvert jobs). */
export const handler = createHandler(createTranscodeWorker({ probe: probeWithMediaConvert }));
