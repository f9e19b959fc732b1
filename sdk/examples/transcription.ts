import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { createClient } from '@messaging-dynadata-api/sdk';

/** Uploads a recording (`tsx transcription.ts speech.wav`), transcribes it and waits for the text. */
const client = createClient({
  baseUrl: process.env.API_BASE_URL ?? 'http://127.0.0.1:3000',
  credential: { apiKey: process.env.API_KEY ?? '' },
});
const file = process.argv[2] ?? 'speech.wav';

const stored = await client.storage.upload(await readFile(file), {
  contentType: 'audio/wav',
  name: basename(file),
});
const { job } = await client.transcriptions.create({ fullPath: stored.fullPath, language: 'en-US' });
const done = await client.transcriptions.waitUntilDone(job.id, { initialDelayMs: 500, maxDelayMs: 2_000 });
if (done.status !== 'done') throw new Error(`transcription ${done.status}: ${done.error?.code}`);
console.log(`transcription ${done.status}: ${done.result?.text}`);
