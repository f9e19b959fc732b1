import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { env } from '../env';
import type { SigningKey } from './jwt';

/**
 * The service's JWT signing keys: a key set `{ keys: SigningKey[] }` whose newest key signs and whose every
 * key verifies. Rotation: add a new key (it signs from then on), keep the old one until the longest-lived
 * token it signed has expired (`JWT_MAX_DURATION_SECONDS`), then remove it. Locally the set is a file under
 * `DATA_DIR` generated once; on AWS it is a Secrets Manager secret created by the data stack (the CDK stack
 * generates no key material: `admin jwt keys rotate` writes the set, see the README).
 */
export interface KeySet {
  keys: SigningKey[];
}

export const generateSigningKey = (now: Date): SigningKey => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    kid: `${now.toISOString().slice(0, 10)}-${randomBytes(4).toString('hex')}`,
    privateJwk: privateKey.export({ format: 'jwk' }),
    publicJwk: publicKey.export({ format: 'jwk' }),
    createdAt: now.toISOString(),
  };
};

export const parseKeySet = (text: string): KeySet => {
  const parsed = JSON.parse(text) as Partial<KeySet>;
  if (!Array.isArray(parsed.keys) || parsed.keys.length === 0) throw new Error('JWT key set has no keys');
  return { keys: [...parsed.keys].sort((a, b) => a.createdAt.localeCompare(b.createdAt)) };
};

export const currentSigningKey = (set: KeySet): SigningKey => {
  const key = set.keys.at(-1);
  if (!key) throw new Error('JWT key set has no keys');
  return key;
};

let loaded: Promise<KeySet> | undefined;

const readKeySet = async (): Promise<KeySet> => {
  const { jwtKeysFile, jwtKeysSecretArn } = env();
  if (jwtKeysSecretArn) {
    const { readSecretString } = await import('../aws/secrets-manager');
    return parseKeySet(await readSecretString(jwtKeysSecretArn));
  }
  if (jwtKeysFile) return parseKeySet(readFileSync(jwtKeysFile, 'utf8'));
  throw new Error('No JWT key set is configured (JWT_KEYS_SECRET_ARN or JWT_KEYS_FILE)');
};

/** Forgets the loaded set so the next `loadKeySet` reads it again (after a rotation elsewhere). */
export const forgetKeySet = (): void => {
  loaded = undefined;
};

/** Loads the key set once per process, on first use (never at module initialisation). */
export const loadKeySet = (): Promise<KeySet> => {
  loaded ??= readKeySet().catch((error: unknown) => {
    loaded = undefined;
    throw error;
  });
  return loaded;
};

/**
 * Rotation: a new key signs from now on; the previous one keeps verifying the tokens it signed (they live at
 * most `JWT_MAX_DURATION_SECONDS`); older keys are dropped. Rotate at most once an hour.
 */
export const rotateKeySet = (set: KeySet | undefined, now: Date): KeySet => ({
  keys: [...(set?.keys.slice(-1) ?? []), generateSigningKey(now)],
});

/** Writes the key set where the runtime reads it (the secret on AWS, the file locally). */
export const storeKeySet = async (set: KeySet): Promise<void> => {
  const { jwtKeysFile, jwtKeysSecretArn } = env();
  const text = `${JSON.stringify(set, null, 2)}\n`;
  if (jwtKeysSecretArn) {
    const { writeSecretString } = await import('../aws/secret-writes');
    await writeSecretString(jwtKeysSecretArn, text);
  } else if (jwtKeysFile) {
    writeFileSync(jwtKeysFile, text, { mode: 0o600 });
  } else {
    throw new Error('No JWT key set is configured (JWT_KEYS_SECRET_ARN or JWT_KEYS_FILE)');
  }
  loaded = undefined;
};

/** The current set, or `undefined` when none has been written yet (a new deployment). */
export const tryLoadKeySet = async (): Promise<KeySet | undefined> => {
  try {
    return await loadKeySet();
  } catch {
    return undefined;
  }
};
