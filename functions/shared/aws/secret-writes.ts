import { PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { secretsManager } from './secrets-manager';

/**
 * Secret writes, in a module of their own: readers import `./secrets-manager` with `import()`, which keeps
 * every export of the module it loads, so a write there would put `PutSecretValue` in every reader's bundle.
 */
export const writeSecretString = async (secretId: string, value: string): Promise<void> => {
  await secretsManager().send(new PutSecretValueCommand({ SecretId: secretId, SecretString: value }));
};
