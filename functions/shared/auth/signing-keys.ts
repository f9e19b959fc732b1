import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { env } from '../env';
import type { SigningKey } from './jwt';

/**
 * The service's JWT signing keys: a key set `{ keys: SigningKey[] }` whose newest key signs and whose every
 * key verifies. Rotation: add a new key (it signs from then on), keep the old one until the longest-lived
 * token it signed has expired (`JWT_MAX_DURATION_SECONDS`), then remove it. Locally the set is a file under
 * `DATA_DIR` generated once; on AWS it is a secret created by the data stack.
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

let loaded: KeySet | undefined;

/** Loads the key set once per process (on first use, never at module initialisation). */
export const loadKeySet = (): KeySet => {
  if (!loaded) {
    const file = env().jwtKeysFile;
    if (!file) throw new Error('No JWT key set is configured (JWT_KEYS_FILE)');
    loaded = parseKeySet(readFileSync(file, 'utf8'));
  }
  return loaded;
};
