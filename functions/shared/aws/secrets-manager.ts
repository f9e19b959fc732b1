import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { env } from '../env';
import { lazy } from '../lazy';
import { tracer } from '../observability/tracer';

/**
 * The process's one Secrets Manager client (writes live in `./secret-writes`, kept out of readers' bundles),
 * built by the first read or write: a cold start whose first request reads no secret does not build it.
 */
export const secretsManager = /* @__PURE__ */ lazy(() =>
  tracer.captureAWSv3Client(new SecretsManagerClient({ region: env().region })),
);

/**
 * Secrets are read through Powertools Parameters, with the traced client above: a value is kept for the
 * `maxAgeSeconds` its reader names (how late a rotation may reach a warm instance), read again after that,
 * and a failed read is not kept, so the next call tries again. Each reader decides its own age: the JWT key
 * sets 60 s, the download signer's keys an hour, the list-cursor key the life of the process.
 */
// Pure: a bundle that reaches no reader (it imports this module for the client alone) leaves it out.
const secrets = /* @__PURE__ */ lazy(() => new SecretsProvider({ awsSdkV3Client: secretsManager() }));

export interface SecretReadOptions {
  maxAgeSeconds: number;
  /** Read it now whatever its age (after a rotation, or a key id the kept value does not know). */
  fresh?: boolean;
}

export const readSecretString = async (secretId: string, options: SecretReadOptions): Promise<string> => {
  const value = await secrets().get(secretId, { maxAge: options.maxAgeSeconds, forceFetch: options.fresh });
  if (typeof value !== 'string') throw new Error(`Secret ${secretId} has no string value`);
  return value;
};
