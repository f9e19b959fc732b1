import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DecryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { env } from '../env';
import { lazy } from '../lazy';
import { tracer } from '../observability/tracer';

/**
 * Data keys for envelope encryption (`docs/decisions/0029-workflow-secrets-envelope-encryption.md`): a fresh
 * 256-bit key per value, returned in the clear (to encrypt with, then dropped) and wrapped (to store beside
 * the ciphertext). On AWS the platform's KMS key wraps it (`GenerateDataKey`, in `./kms-data-keys`, kept out
 * of the bundles that only read; `Decrypt` here); the local stack
 * wraps it with its local key (AES-256-GCM, `WORKFLOW_SECRETS_LOCAL_KEY`), the same calls above this module.
 * The encryption context (the company and the name) is bound to the wrapped key, so a wrapped key copied to
 * another company's record does not unwrap there.
 */
export type EncryptionContext = Record<string, string>;

/** The process's one KMS client, built by the first call (writes live in `./kms-data-keys`). */
export const kms = /* @__PURE__ */ lazy(() =>
  tracer.captureAWSv3Client(new KMSClient({ region: env().region })),
);

export const localKey = (): Buffer | undefined => {
  const text = env().workflowSecretsLocalKey;
  return text ? Buffer.from(text, 'base64') : undefined;
};

export const awsKeyId = (): string => {
  const id = env().workflowSecretsKeyArn;
  if (!id)
    throw new Error('No key for workflow secrets (WORKFLOW_SECRETS_KEY_ARN or WORKFLOW_SECRETS_LOCAL_KEY)');
  return id;
};

/** The context as additional authenticated data of the local wrapping: its entries in a fixed order. */
export const contextBytes = (context: EncryptionContext) =>
  Buffer.from(JSON.stringify(Object.entries(context).sort(([a], [b]) => (a < b ? -1 : 1))));

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** AES-256-GCM: `iv ‖ ciphertext ‖ tag`, with `aad` authenticated. */
export const sealWith = (key: Buffer, plaintext: Buffer, aad: Buffer): Buffer => {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]);
};

/** Opens what `sealWith` sealed; throws when the key, the data or `aad` differ. */
export const openWith = (key: Buffer, sealed: Buffer, aad: Buffer): Buffer => {
  const iv = sealed.subarray(0, IV_BYTES);
  const tag = sealed.subarray(sealed.length - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  return Buffer.concat([
    decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)),
    decipher.final(),
  ]);
};

export const unwrapDataKey = async (wrapped: Buffer, context: EncryptionContext): Promise<Buffer> => {
  const local = localKey();
  if (local) return openWith(local, wrapped, contextBytes(context));
  const answer = await kms().send(
    new DecryptCommand({ KeyId: awsKeyId(), CiphertextBlob: wrapped, EncryptionContext: context }),
  );
  if (!answer.Plaintext) throw new Error('KMS returned no plaintext');
  return Buffer.from(answer.Plaintext);
};
