import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSigningKey, keySetText, parseKeySet, publicKeySetOf } from '../shared/auth/signing-keys';
import { writeFileAtomically } from './state-file';

/**
 * The local stack's secrets, generated once under its data directory and kept there between starts: the JWT
 * key sets, the list-cursor key and the local S3's access key. On AWS each is a Secrets Manager secret.
 */

export const jwtKeysFile = (dataDir: string) => join(dataDir, 'jwt-signing-keys.json');
export const jwtPublicKeysFile = (dataDir: string) => join(dataDir, 'jwt-verification-keys.json');
const cursorKeyFile = (dataDir: string) => join(dataDir, 'dynadata-cursor-key');
const s3CredentialsFile = (dataDir: string) => join(dataDir, 's3-credentials.json');

/**
 * The local S3's access key, generated once (mode 0600) under the data directory: the one key the local S3
 * knows, as an AWS account's keys are its own (s3rver's built-in public `S3RVER` key is withdrawn), so a
 * tenant holding a URL learns an access key id, never a secret to sign other requests with.
 */
export const ensureS3Credentials = (dataDir: string): { accessKeyId: string; secretAccessKey: string } => {
  const file = s3CredentialsFile(dataDir);
  if (!existsSync(file)) {
    const credentials = {
      accessKeyId: `LOCAL${randomBytes(8).toString('hex').toUpperCase()}`,
      secretAccessKey: randomBytes(30).toString('base64url'),
    };
    writeFileAtomically(file, `${JSON.stringify(credentials)}\n`, 0o600);
  }
  return JSON.parse(readFileSync(file, 'utf8')) as { accessKeyId: string; secretAccessKey: string };
};

/** The local key that wraps workflow secrets' data keys (on AWS a KMS key), generated once (mode 0600). */
export const ensureWorkflowSecretsKey = (dataDir: string): string => {
  const file = join(dataDir, 'workflow-secrets-key');
  if (!existsSync(file)) writeFileAtomically(file, randomBytes(32).toString('base64'), 0o600);
  return readFileSync(file, 'utf8').trim();
};

/** The local list-cursor HMAC key, generated once (mode 0600) under the data directory. */
export const ensureCursorKey = (dataDir: string): string => {
  const file = cursorKeyFile(dataDir);
  if (!existsSync(file)) writeFileAtomically(file, randomBytes(32).toString('base64url'), 0o600);
  return readFileSync(file, 'utf8').trim();
};

/**
 * The local JWT key sets under the data directory: the signing set (mode 0600), generated on first start, and
 * the verification set the authorizer reads, written first and derived from the signing set when a data
 * directory from before the split has only that one.
 */
export const ensureJwtKeys = (dataDir: string, now: Date) => {
  const signing = jwtKeysFile(dataDir);
  const verification = jwtPublicKeysFile(dataDir);
  const set = existsSync(signing)
    ? parseKeySet(readFileSync(signing, 'utf8'))
    : { keys: [generateSigningKey(now)] };
  if (!existsSync(verification)) writeFileAtomically(verification, keySetText(publicKeySetOf(set)), 0o644);
  if (!existsSync(signing)) writeFileAtomically(signing, keySetText(set), 0o600);
};
