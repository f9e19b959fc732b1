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
 * (its account registry: the stack's own generated key, and any key registered later, as the download signer's
 * rotation test does), each with its own secret; s3rver's built-in `S3RVER` key, whose secret is public, is
 * withdrawn.
 */
const accountModule = createRequire(import.meta.url)('s3rver/lib/models/account') as AccountRegistry;
const accounts = accountModule.registry;

/** s3rver's built-in key, public in its documentation: never a key the local S3 accepts. */
const BUILT_IN_KEY = 'S3RVER';

const secretFor = (accessKeyId: string): string | undefined =>
  accounts.get(accessKeyId)?.accessKeys.get(accessKeyId);

export const startS3Local = async (
  dataDir: string,
  region: string,
  credentials: { accessKeyId: string; secretAccessKey: string },
): Promise<RunningService> => {
  mkdirSync(dataDir, { recursive: true });
  accountModule.DUMMY_ACCOUNT.revokeAccessKey(BUILT_IN_KEY);
  accountModule.DUMMY_ACCOUNT.createKeyPair(credentials.accessKeyId, credentials.secretAccessKey);
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dataDir });
  const { port } = await server.run();
  const front = await startS3SignatureFront({
    upstream: `http://127.0.0.1:${port}`,
    region,
    secretFor,
    multipartDirectory: `${dataDir}-multipart`,
  });
  return {
    endpoint: front.endpoint,
    // s3rver's own port is as much the platform's as the front's: never an outbound target.
    innerPorts: [port],
    stop: async () => {
      await front.stop();
      // Connections the front left (none, normally) would hold `close` open for ever.
      const closing = server.close();
      server.httpServer?.closeAllConnections();
      await closing;
    },
  };
};
