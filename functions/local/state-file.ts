import { renameSync, writeFileSync } from 'node:fs';

/**
 * Writes a local stack's state file whole or not at all: the text goes to a temporary file beside it, which is
 * then renamed over the file. A stack killed mid-write (the crash tests do exactly that) leaves the previous
 * file or the new one, never an empty or half-written one that the next start could not read.
 */
export const writeFileAtomically = (file: string, text: string, mode?: number): void => {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text, mode === undefined ? undefined : { mode });
  renameSync(temporary, file);
};
