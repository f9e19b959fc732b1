import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The 60-second sources of the cost bench, stored as the company's objects: a tone for the transcode, and
 * speech (the LibriVox clips of `pocketsphinx-testdata`, looped) for the transcription. Returns the path.
 */
const FFMPEG = '/usr/bin/ffmpeg';
const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';
const CLIPS = ['0870', '0880', '0890', '0920', '0930'].map(
  (n) => `${LIBRIVOX}/sense_and_sensibility_01_austen_64kb-${n}.wav`,
);
const SECONDS = 60;

export const storeMedia = async (companyId: string, kind: 'tone' | 'speech'): Promise<string> => {
  const { uploadFile } = await import('../../functions/shared/aws/s3-objects');
  const { recordStoredObject } = await import('../../functions/shared/data/stored-objects');
  const { env } = await import('../../functions/shared/env');
  const dir = mkdtempSync(join(tmpdir(), 'cost-media-'));
  try {
    const file = join(dir, `${kind}.wav`);
    const quiet = ['-hide_banner', '-loglevel', 'error', '-y'];
    if (kind === 'tone') {
      execFileSync(FFMPEG, [...quiet, '-f', 'lavfi', '-i', `sine=frequency=440:duration=${SECONDS}`, file]);
    } else {
      const list = join(dir, 'list.txt');
      writeFileSync(list, [...CLIPS, ...CLIPS, ...CLIPS].map((f) => `file '${f}'`).join('\n'));
      execFileSync(FFMPEG, [...quiet, '-f', 'concat', '-safe', '0', '-i', list, '-t', String(SECONDS), file]);
    }
    const bucket = env().bucketName;
    const fullPath = `companies/${companyId}/cost/${kind}.wav`;
    const { size, etag } = await uploadFile(bucket, fullPath, file, 'audio/wav');
    const now = new Date();
    await recordStoredObject(
      companyId,
      { bucket, fullPath, size, etag, contentType: 'audio/wav', createdAt: now.toISOString() },
      now,
    );
    return fullPath;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
