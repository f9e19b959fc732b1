// The local stack's markdown reader (`./markdown-reader.ts`): a worker thread that reads markdown aloud with
// the same code the Lambda runs in-process, so a long document does not hold the one event loop that answers
// every local request. Plain JavaScript: a worker does not inherit the stack's TypeScript hooks, so it
// registers them before importing the sources.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { rewriteMarkdownInProcess } = await import('../shared/domain/spoken-text.ts');

parentPort?.on('message', async ({ id, markdown, pointer }) => {
  try {
    parentPort?.postMessage({ id, text: await rewriteMarkdownInProcess(markdown, pointer) });
  } catch (error) {
    const { code, message, errors, name } = error ?? {};
    parentPort?.postMessage({ id, error: { code, message: String(message ?? error), errors, name } });
  }
});
parentPort?.postMessage({ ready: true });
