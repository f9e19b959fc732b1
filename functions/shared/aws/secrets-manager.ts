import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { env } from '../env';
import { tracer } from '../logger';

const client = tracer.captureAWSv3Client(new SecretsManagerClient({ region: env().region }));

export const readSecretString = async (secretId: string): Promise<string> => {
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  if (!SecretString) throw new Error(`Secret ${secretId} has no string value`);
  return SecretString;
};

export const writeSecretString = async (secretId: string, value: string): Promise<void> => {
  await client.send(new PutSecretValueCommand({ SecretId: secretId, SecretString: value }));
};
