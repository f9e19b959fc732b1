import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { createClient } from '@messaging-dynadata-api/sdk';

/** Uploads an audio file (`tsx transcode.ts greeting.wav`), converts it to FLAC and waits for the job. */
const client = createClient({
  baseUrl: process.env.API_BASE_URL ?? 'http://127.0.0.1:3000',
  credential: { apiKey: process.env.API_KEY ?? '' },
});
const file = process.argv[2] ?? 'greeting.wav';

const stored = await client.storage.upload(await readFile(file), {
  contentType: 'audio/wav',
  name: basename(file),
});
console.log(`uploaded: ${stored.fullPath} (${stored.size} bytes)`);
const { job } = await client.transcodes.create({ fullPath: stored.fullPath, preset: 'flac_16k_mono' });
const done = await client.transcodes.waitUntilDone(job.id, { initialDelayMs: 500, maxDelayMs: 2_000 });
if (done.status !== 'done' || done.output === null)
  throw new Error(`transcode ${done.status}: ${done.error?.code}`);
const { url } = await client.storage.createDownloadUrl({ fullPath: done.output.fullPath });
console.log(`transcode ${done.status}: ${done.output.fullPath}`);
console.log(`download: ${new URL(url).pathname}`);
