import { contextBytes, type EncryptionContext, openWith, unwrapDataKey } from '../../aws/kms';
import { getWorkflowSecrets } from '../../data/workflow-secrets';
import { SECRET_NAME_PATTERN } from '../../types/workflows';

/**
 * Opening workflow secrets for a run (`vault.ts` stores them): what the run engines import, so their bundles
 * unwrap data keys and never make one. The encryption context binds a sealed value to its company and name.
 */
export const contextOf = (companyId: string, name: string): EncryptionContext => ({
  companyId,
  workflowSecret: name,
});

/** The context as the sealed value's additional authenticated data too. */
export const aadOf = (context: EncryptionContext) => contextBytes(context);

/** The values of the named secrets the company holds (a name it does not hold is absent from the map). */
export const revealSecrets = async (
  companyId: string,
  names: readonly string[],
): Promise<Map<string, string>> => {
  const found = await getWorkflowSecrets(
    companyId,
    [...new Set(names)].filter((n) => SECRET_NAME_PATTERN.test(n)),
  );
  const values = new Map<string, string>();
  for (const stored of found) {
    const context = contextOf(companyId, stored.name);
    const key = await unwrapDataKey(Buffer.from(stored.wrappedKey, 'base64'), context);
    values.set(
      stored.name,
      openWith(key, Buffer.from(stored.sealed, 'base64'), aadOf(context)).toString('utf8'),
    );
    key.fill(0);
  }
  return values;
};
