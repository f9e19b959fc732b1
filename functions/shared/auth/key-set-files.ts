import { readFile } from 'node:fs/promises';
import { BaseProvider } from '@aws-lambda-powertools/parameters/base';

/**
 * The local stack keeps the JWT key sets in files (`JWT_KEYS_FILE`, `JWT_PUBLIC_KEYS_FILE`) where AWS keeps
 * them in Secrets Manager. They are read through a Powertools Parameters provider of their own, so a file
 * is kept, aged and read again exactly as the secret is (the same `maxAge`, the same `forceFetch`), and a
 * rotation written by `admin jwt keys rotate` reaches the running stack as it reaches a warm Lambda.
 *
 * A class because a custom provider is how Powertools Parameters is extended (`BaseProvider`); the
 * project's code otherwise keeps to functions.
 */
class KeySetFileProvider extends BaseProvider {
  constructor() {
    super({});
  }

  protected _get(path: string): Promise<string> {
    return readFile(path, 'utf8');
  }

  protected _getMultiple(): Promise<Record<string, unknown> | undefined> {
    return Promise.reject(new Error('Key set files are read one at a time'));
  }
}

const files = new KeySetFileProvider();

export const readKeySetFile = async (
  path: string,
  options: { maxAgeSeconds: number; fresh?: boolean },
): Promise<string> => {
  const text = await files.get(path, { maxAge: options.maxAgeSeconds, forceFetch: options.fresh });
  if (typeof text !== 'string') throw new Error(`Key set file ${path} could not be read`);
  return text;
};
