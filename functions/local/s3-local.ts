import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import S3rver from 's3rver';
import type { AccountRegistry } from 's3rver/lib/models/account';
import type { RunningService } from './dynamodb-local';
import { startS3SignatureFront } from './s3-signature-front';

/**
 * The local S3: s3rver with its objects on disk under `dataDir`, behind a front that verifies every request's
 * SigV4 signature as S3 does (`./s3-signature-front`), both on loopback, on ports chosen at run time. The
 * endpoint is the front's; s3rver's own port is not published. The front knows the access keys s3rver knows
 * (its account registry: `S3RVER`, and any key registered later, as the download signer's rotation test does),
 * each with its own secret.
 */
const accounts = (createRequire(import.meta.url)('s3rver/lib/models/account') as AccountRegistry).registry;

const secretFor = (accessKeyId: string): string | undefined =>
  accounts.get(accessKeyId)?.accessKeys.get(accessKeyId);

export const startS3Local = async (dataDir: string, region = 'us-east-1'): Promise<RunningService> => {
  mkdirSync(dataDir, { recursive: true });
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dataDir });
  const { port } = await server.run();
  const front = await startS3SignatureFront({ upstream: `http://127.0.0.1:${port}`, region, secretFor });
  return {
    endpoint: front.endpoint,
    // s3rver's own port is as much the platform's as the front's: never an outbound target.
    innerPorts: [port],
    stop: async () => {
      await front.stop();
      await server.close();
    },
  };
};
