import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { env } from '../env';
import { tracer } from '../logger';

/** The process's one Secrets Manager client (writes live in `./secret-writes`, kept out of readers' bundles). */
export const secretsManager = tracer.captureAWSv3Client(new SecretsManagerClient({ region: env().region }));

export const readSecretString = async (secretId: string): Promise<string> => {
  const { SecretString } = await secretsManager.send(new GetSecretValueCommand({ SecretId: secretId }));
  if (!SecretString) throw new Error(`Secret ${secretId} has no string value`);
  return SecretString;
};
