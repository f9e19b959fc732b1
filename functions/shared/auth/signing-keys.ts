import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { env } from '../env';
import type { SigningKey } from './jwt';

/**
 * The service's JWT keys, kept as two sets:
 *
 * - the signing key set `{ keys: SigningKey[] }` (private and public halves), read only by the code that
 *   mints tokens (the workflows group's JWT action, the operator CLI); its newest key signs;
 * - the verification key set `{ keys: VerificationKey[] }` (the public halves alone), read by the authorizer;
 *   every key in it verifies. A verification set that holds private key material is refused.
 *
 * Rotation: add a new key (it signs from then on), keep the old one until the longest-lived token it signed
 * has expired (`JWT_MAX_DURATION_SECONDS`), then remove it. Both sets are written by every rotation, the
 * verification set first, so a key verifies before any token is signed with it. Locally the sets are files
 * under `DATA_DIR` (`JWT_KEYS_FILE`, `JWT_PUBLIC_KEYS_FILE`) generated once; on AWS they are two Secrets
 * Manager secrets created by the data stack (`JWT_KEYS_SECRET_ARN`, `JWT_PUBLIC_KEYS_SECRET_ARN`; the CDK
 * stack generates no key material: `admin jwt keys rotate` writes both, see docs/security.md).
 */
export interface KeySet {
  keys: SigningKey[];
}

/** The public half of a signing key: all the authorizer ever holds. */
export type VerificationKey = Pick<SigningKey, 'kid' | 'publicJwk' | 'createdAt'>;

export interface PublicKeySet {
  keys: VerificationKey[];
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

const byCreation = <K extends { createdAt: string }>(keys: readonly K[]): K[] =>
  [...keys].sort((a, b) => a.createdAt.localeCompare(b.createdAt));

export const parseKeySet = (text: string): KeySet => {
  const parsed = JSON.parse(text) as Partial<KeySet>;
  if (!Array.isArray(parsed.keys) || parsed.keys.length === 0) throw new Error('JWT key set has no keys');
  return { keys: byCreation(parsed.keys) };
};

/** The verification set of a signing set: each key's id, public JWK and creation time, nothing else. */
export const publicKeySetOf = (set: KeySet): PublicKeySet => ({
  keys: set.keys.map(({ kid, publicJwk, createdAt }) => ({ kid, publicJwk, createdAt })),
});

/** JWK members that hold private key material (EC and RSA private parts, symmetric keys). */
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

export const parsePublicKeySet = (text: string): PublicKeySet => {
  const parsed = JSON.parse(text) as Partial<PublicKeySet>;
  if (!Array.isArray(parsed.keys) || parsed.keys.length === 0) {
    throw new Error('JWT verification key set has no keys');
  }
  for (const key of parsed.keys) {
    const privateMembers = PRIVATE_JWK_MEMBERS.filter((m) => Object.hasOwn(key.publicJwk ?? {}, m));
    if (Object.hasOwn(key, 'privateJwk') || privateMembers.length > 0) {
      throw new Error(`JWT verification key set holds private key material (kid ${key.kid})`);
    }
  }
  return {
    keys: byCreation(parsed.keys).map(({ kid, publicJwk, createdAt }) => ({ kid, publicJwk, createdAt })),
  };
};

export const currentSigningKey = (set: KeySet): SigningKey => {
  const key = set.keys.at(-1);
  if (!key) throw new Error('JWT key set has no keys');
  return key;
};

/** Where one of the two sets lives: a secret on AWS, a file locally. */
interface KeySetStore {
  secretArn: string | undefined;
  file: string | undefined;
  /** The variables that name it, for the error when neither is set. */
  variables: string;
  /** The file's mode: the signing set is readable by its owner only. */
  mode: number;
}

const signingStore = (): KeySetStore => ({
  secretArn: env().jwtKeysSecretArn,
  file: env().jwtKeysFile,
  variables: 'JWT_KEYS_SECRET_ARN or JWT_KEYS_FILE',
  mode: 0o600,
});

const verificationStore = (): KeySetStore => ({
  secretArn: env().jwtPublicKeysSecretArn,
  file: env().jwtPublicKeysFile,
  variables: 'JWT_PUBLIC_KEYS_SECRET_ARN or JWT_PUBLIC_KEYS_FILE',
  mode: 0o644,
});

const unconfigured = (store: KeySetStore): Error =>
  new Error(`No JWT key set is configured (${store.variables})`);

/**
 * How long a process keeps a key set it read: a rotation (or a key dropped after a compromise) reaches every
 * warm instance within this, whether or not it meets a new `kid`.
 */
export const KEY_SET_MAX_AGE_MS = 60_000;

/** A set's text, kept `KEY_SET_MAX_AGE_MS` by Powertools Parameters (the secret on AWS, the file locally). */
const readStore = async (store: KeySetStore, fresh: boolean): Promise<string> => {
  const options = { maxAgeSeconds: KEY_SET_MAX_AGE_MS / 1000, fresh };
  if (store.secretArn) {
    const { readSecretString } = await import('../aws/secrets-manager');
    return readSecretString(store.secretArn, options);
  }
  if (store.file) {
    const { readKeySetFile } = await import('./key-set-files');
    return readKeySetFile(store.file, options);
  }
  throw unconfigured(store);
};

const writeStore = async (store: KeySetStore, text: string): Promise<void> => {
  if (store.secretArn) {
    const { writeSecretString } = await import('../aws/secret-writes');
    await writeSecretString(store.secretArn, text);
  } else if (store.file) {
    writeFileSync(store.file, text, { mode: store.mode });
  } else {
    throw unconfigured(store);
  }
};

/**
 * A set read on first use (never at module initialisation), through `readStore`'s cache. The parsed set is
 * kept with the text it came from, so the same text gives the same object (the authorizer imports a set's
 * keys once per object). `forget` has the next load read the store again at once; a failed read is retried.
 */
const keySetLoader = <T>(store: () => KeySetStore, parse: (text: string) => T) => {
  let fresh = false;
  let parsed: { text: string; set: T } | undefined;
  return {
    load: async (): Promise<T> => {
      const text = await readStore(store(), fresh);
      fresh = false;
      if (parsed?.text !== text) parsed = { text, set: parse(text) };
      return parsed.set;
    },
    forget: (): void => {
      fresh = true;
    },
  };
};

const signingSet = /* @__PURE__ */ keySetLoader(signingStore, parseKeySet);
const verificationSet = /* @__PURE__ */ keySetLoader(verificationStore, parsePublicKeySet);

/** Loads the signing key set once per process (minting code only: it holds the private keys). */
export const loadKeySet = signingSet.load;

/** Loads the verification key set once per process: the public keys the authorizer verifies with. */
export const loadPublicKeySet = verificationSet.load;

/** Forgets the loaded verification set so the next `loadPublicKeySet` reads it again. */
export const forgetPublicKeySet = verificationSet.forget;

/**
 * Rotation: a new key signs from now on; the previous one keeps verifying the tokens it signed (they live at
 * most `JWT_MAX_DURATION_SECONDS`); older keys are dropped. Rotate at most once an hour.
 */
export const rotateKeySet = (set: KeySet | undefined, now: Date): KeySet => ({
  keys: [...(set?.keys.slice(-1) ?? []), generateSigningKey(now)],
});

/** A set as stored: pretty JSON with a final newline. */
export const keySetText = (set: KeySet | PublicKeySet): string => `${JSON.stringify(set, null, 2)}\n`;

/**
 * Writes both sets where the runtime reads them (the secrets on AWS, the files locally): the verification set
 * first, so every key that can sign is already verifiable (a failure between the two writes leaves a key that
 * verifies but never signs, which the next rotation drops). Refuses before writing anything unless both are
 * configured.
 */
export const storeKeySet = async (set: KeySet): Promise<void> => {
  const signing = signingStore();
  const verification = verificationStore();
  for (const store of [verification, signing]) if (!store.secretArn && !store.file) throw unconfigured(store);
  await writeStore(verification, keySetText(publicKeySetOf(set)));
  await writeStore(signing, keySetText(set));
  signingSet.forget();
  verificationSet.forget();
};

/** The current set, or `undefined` when none has been written yet (a new deployment). */
export const tryLoadKeySet = async (): Promise<KeySet | undefined> => {
  try {
    return await loadKeySet();
  } catch {
    return undefined;
  }
};
