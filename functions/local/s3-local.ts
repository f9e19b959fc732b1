import { mkdirSync } from 'node:fs';
import S3rver from 's3rver';
import type { RunningService } from './dynamodb-local';

/** Starts s3rver with its objects on disk under `dataDir`, on loopback, on a port chosen at run time. */
export const startS3Local = async (dataDir: string): Promise<RunningService> => {
  mkdirSync(dataDir, { recursive: true });
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dataDir });
  const { port } = await server.run();
  return { endpoint: `http://127.0.0.1:${port}`, stop: () => server.close() };
};
