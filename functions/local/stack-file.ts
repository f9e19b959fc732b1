import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { StackDescription } from './stack';
import { localRuntimeEnvironment } from './stack';

/** Reads `<dataDir>/stack.json` written by a running local stack; `undefined` when none is running. */
export const readStackFile = (dataDir: string): StackDescription | undefined => {
  const file = join(resolve(dataDir), 'stack.json');
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as StackDescription;
};

/** Environment that points the runtime modules at the local stack described by the stack file. */
export const localEnvironmentFromStackFile = (dataDir: string): Record<string, string> | undefined => {
  const description = readStackFile(dataDir);
  return description ? localRuntimeEnvironment(description) : undefined;
};
