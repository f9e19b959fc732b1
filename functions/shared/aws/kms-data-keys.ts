import { randomBytes } from 'node:crypto';
import { GenerateDataKeyCommand } from '@aws-sdk/client-kms';
import { awsKeyId, contextBytes, type EncryptionContext, kms, localKey, sealWith } from './kms';

/**
 * A fresh data key for envelope encryption (`./kms.ts`): in the clear (to seal a value with, then dropped)
 * and wrapped (to store beside the sealed value). Only what stores a value imports it, so the functions that
 * only read values hold `kms:Decrypt` alone.
 */
export interface DataKey {
  plaintext: Buffer;
  wrapped: Buffer;
}

export const generateDataKey = async (context: EncryptionContext): Promise<DataKey> => {
  const local = localKey();
  if (local) {
    const plaintext = randomBytes(32);
    return { plaintext, wrapped: sealWith(local, plaintext, contextBytes(context)) };
  }
  const answer = await kms().send(
    new GenerateDataKeyCommand({ KeyId: awsKeyId(), KeySpec: 'AES_256', EncryptionContext: context }),
  );
  if (!answer.Plaintext || !answer.CiphertextBlob) throw new Error('KMS returned no data key');
  return { plaintext: Buffer.from(answer.Plaintext), wrapped: Buffer.from(answer.CiphertextBlob) };
};
