/**
 * The download signer's access keys, as its Secrets Manager secret holds them: `{ keys: [...] }`, oldest first,
 * at most two (IAM's limit per user). The newest signs new download URLs; the one before it stays in IAM until
 * every URL it signed has expired. The rotation function (`functions/download-signer-rotation`) writes the set;
 * the storage group reads it.
 */
export interface SignerKey {
  accessKeyId: string;
  secretAccessKey: string;
  /** When the key was created (ISO 8601); a key stops signing when the next one is created. */
  createdAt: string;
}

export interface SignerKeySet {
  keys: SignerKey[];
}

/** The longest a download URL lives (SigV4's own ceiling, 7 days). */
export const DOWNLOAD_URL_MAX_SECONDS = 604_800;

/** A process reads the set again after this long, so a retired key stops signing within the hour. */
export const SIGNER_REREAD_SECONDS = 3_600;

/**
 * A retired key is deleted no sooner than this after its successor was created: every URL it signed (at most
 * `SIGNER_REREAD_SECONDS` after retirement, living at most 7 days) has expired by then, with hours to spare.
 */
export const KEY_RETIREMENT_SECONDS = DOWNLOAD_URL_MAX_SECONDS + 86_400;

const isKey = (value: unknown): value is SignerKey => {
  const key = value as Partial<SignerKey> | null;
  return (
    typeof key?.accessKeyId === 'string' &&
    typeof key.secretAccessKey === 'string' &&
    typeof key.createdAt === 'string' &&
    !Number.isNaN(Date.parse(key.createdAt))
  );
};

/** Parses the secret's value; keys come out oldest first. */
export const parseSignerKeySet = (raw: string): SignerKeySet => {
  const parsed = JSON.parse(raw) as { keys?: unknown };
  if (!Array.isArray(parsed.keys) || !parsed.keys.every(isKey)) {
    throw new Error(
      'The download signer secret is not a key set {keys: [{accessKeyId, secretAccessKey, createdAt}]}',
    );
  }
  return { keys: [...parsed.keys].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt)) };
};

/** The key that signs new URLs: the newest. */
export const currentSignerKey = (set: SignerKeySet): SignerKey => {
  const key = set.keys.at(-1);
  if (!key) throw new Error('The download signer has no access key yet (its first rotation has not run)');
  return key;
};
