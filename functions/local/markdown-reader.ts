import { Worker } from 'node:worker_threads';
import { AppError, type ErrorCode, type FieldError } from '../shared/errors';

/**
 * Markdown read aloud in a worker thread (docs/decisions/0019-markdown-work-bounds.md). On AWS each request
 * has its own Lambda; here every handler shares one process, and an ordinary 100,000-character document keeps
 * the parser busy for a few hundred milliseconds. The stack registers this reader
 * (`registerMarkdownReader`), so the speech routes and the workflow actions hand the markdown to one worker and
 * the event loop keeps answering. Refusals (400 `validation_failed` and its pointer) come back as they were
 * thrown; a worker that dies fails the reads it held and is started again on the next one.
 */
interface Pending {
  resolve: (text: string) => void;
  reject: (error: Error) => void;
}
interface Answer {
  id: number;
  text?: string;
  error?: { code?: ErrorCode; message: string; errors?: FieldError[]; name?: string };
}

let worker: Worker | undefined;
const pending = new Map<number, Pending>();
let nextId = 0;

const failAll = (error: Error) => {
  for (const { reject } of pending.values()) reject(error);
  pending.clear();
};

const started = (): Worker => {
  if (worker) return worker;
  const w = new Worker(new URL('./markdown-worker.mjs', import.meta.url));
  // The worker never keeps the stack's process alive by itself.
  w.unref();
  w.on('message', (answer: Answer & { ready?: boolean }) => {
    if (answer.ready) return;
    const waiting = pending.get(answer.id);
    if (!waiting) return;
    pending.delete(answer.id);
    if (answer.text !== undefined) return waiting.resolve(answer.text);
    const { code, message, errors } = answer.error ?? { message: 'The markdown reader failed.' };
    waiting.reject(code ? new AppError(code, message, { errors }) : new Error(message));
  });
  const gone = (error: Error) => {
    if (worker === w) worker = undefined;
    failAll(error);
  };
  w.on('error', gone);
  w.on('exit', (exitCode) => gone(new Error(`The markdown reader stopped (exit code ${exitCode}).`)));
  worker = w;
  return w;
};

/** The spoken form of `markdown`, read in the worker thread. */
export const readMarkdownInWorker = (markdown: string, pointer: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    started().postMessage({ id, markdown, pointer });
  });

/** Stops the worker (the stack's stop). */
export const stopMarkdownReader = async (): Promise<void> => {
  const w = worker;
  worker = undefined;
  if (w) await w.terminate();
};
