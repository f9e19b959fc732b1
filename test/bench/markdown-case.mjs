// One case of `npm run bench -- markdown` (./markdown.ts), in a worker thread of its own: reads one document
// through one door's domain function and reports the time and the outcome. Plain JavaScript: a worker does not
// inherit the TypeScript hooks of the bench, so it registers them before importing the sources.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { door, markdown, root } = workerData;
const { spokenTextOf } = await import(`${root}/functions/shared/domain/speech-job-requests.ts`);
const { spokenText } = await import(`${root}/functions/shared/domain/spoken-text.ts`);
const read = door.startsWith('speech job') ? () => spokenTextOf({ markdown }) : () => spokenText(markdown);
// The parser and the tokenizer are loaded first, so the time is the reading's own.
await spokenText('# warm *up* [a](b)').catch(() => undefined);
const started = performance.now();
let outcome;
try {
  await read();
  outcome = 'read';
} catch (error) {
  outcome = error?.code ? `400 ${error.code}` : `error ${String(error?.message).slice(0, 40)}`;
}
parentPort?.postMessage({ ms: performance.now() - started, outcome });
