import {
  KEY_RETIREMENT_SECONDS,
  type SignerKey,
  type SignerKeySet,
} from '../../shared/aws/download-signer-keys';
import type { AccessKeyApi } from '../../shared/aws/iam-access-keys';

/** IAM holds at most two access keys per user. */
export const MAX_ACCESS_KEYS = 2;

/** The previous key still protects URLs it signed: no key can be added before `until`. */
export class RotationBlockedError extends Error {
  constructor(readonly until: Date) {
    super(
      `The previous download signer key signs URLs that live until ${until.toISOString()}; rotate after that`,
    );
    this.name = 'RotationBlockedError';
  }
}

/**
 * One rotation of the download signer's keys, from the set the secret holds (oldest first):
 * 1. keys IAM holds that the set does not are deleted: a rotation that failed before its set was stored
 *    created them, and they never signed a URL; keys of the set that IAM no longer holds are dropped;
 * 2. a key before the current one is deleted once `KEY_RETIREMENT_SECONDS` passed since its successor was
 *    created (every URL it signed has expired), and kept otherwise;
 * 3. a new key is created unless IAM's two keys are both still needed (`RotationBlockedError`).
 * Returns the new set: the keys kept and the new key, which signs from now on.
 */
export const rotateSignerKeys = async (
  set: SignerKeySet,
  api: AccessKeyApi,
  now: Date,
): Promise<SignerKeySet> => {
  const inIam = new Set((await api.list()).map((key) => key.accessKeyId));
  const known = new Set(set.keys.map((key) => key.accessKeyId));
  for (const accessKeyId of inIam) if (!known.has(accessKeyId)) await api.remove(accessKeyId);
  const live = set.keys.filter((key) => inIam.has(key.accessKeyId));
  const kept: SignerKey[] = [];
  let blockedUntil: Date | undefined;
  for (const [index, key] of live.entries()) {
    const successor = live[index + 1];
    if (!successor) {
      kept.push(key);
      continue;
    }
    const deletableAt = Date.parse(successor.createdAt) + KEY_RETIREMENT_SECONDS * 1000;
    if (now.getTime() >= deletableAt) {
      await api.remove(key.accessKeyId);
    } else {
      kept.push(key);
      blockedUntil = new Date(deletableAt);
    }
  }
  if (kept.length >= MAX_ACCESS_KEYS) throw new RotationBlockedError(blockedUntil ?? now);
  return { keys: [...kept, await api.create()] };
};

/** A stored set is usable when its newest key is an active key of the user. */
export const isUsableKeySet = async (set: SignerKeySet, api: AccessKeyApi): Promise<boolean> => {
  const newest = set.keys.at(-1);
  if (!newest) return false;
  return (await api.list()).some((key) => key.accessKeyId === newest.accessKeyId && key.active);
};
