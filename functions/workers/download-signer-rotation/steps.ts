import { parseSignerKeySet } from '../../shared/aws/download-signer-keys';
import type { AccessKeyApi } from '../../shared/aws/iam-access-keys';
import type { SecretVersions } from '../../shared/aws/secret-versions';
import { isUsableKeySet, rotateSignerKeys } from './rotation';

/** The steps Secrets Manager calls, in order, with the new version's id (`ClientRequestToken`). */
export type RotationStep = 'createSecret' | 'setSecret' | 'testSecret' | 'finishSecret';

export interface RotationDeps {
  secret: SecretVersions;
  keys: AccessKeyApi;
  now: () => Date;
}

const currentVersionId = (versions: Record<string, string[]>): string | undefined =>
  Object.entries(versions).find(([, stages]) => stages.includes('AWSCURRENT'))?.[0];

/**
 * One step of a Secrets Manager rotation of the download signer's key set, each safe to repeat:
 * - `createSecret`: rotates the keys (`rotateSignerKeys`) and stores the new set as the `AWSPENDING` version;
 * - `setSecret`: nothing (IAM activates a key when it creates it);
 * - `testSecret`: the pending set's newest key is an active key of the user;
 * - `finishSecret`: the pending version becomes `AWSCURRENT`, so the storage group signs with the new key.
 */
export const runRotationStep = async (
  step: RotationStep,
  versionId: string,
  deps: RotationDeps,
): Promise<void> => {
  const { rotationEnabled, versions } = await deps.secret.stages();
  if (!rotationEnabled) throw new Error('Rotation is not enabled on the download signer secret');
  const stages = versions[versionId];
  if (!stages) throw new Error(`Version ${versionId} is not a version of the download signer secret`);
  if (stages.includes('AWSCURRENT')) return;
  if (!stages.includes('AWSPENDING')) throw new Error(`Version ${versionId} is not pending rotation`);

  const pending = () => deps.secret.value({ versionId, stage: 'AWSPENDING' });
  switch (step) {
    case 'createSecret': {
      if ((await pending()) !== undefined) return;
      const current = await deps.secret.value('AWSCURRENT');
      const set = parseSignerKeySet(current ?? '{"keys":[]}');
      const next = await rotateSignerKeys(set, deps.keys, deps.now());
      await deps.secret.putPending(versionId, JSON.stringify(next));
      return;
    }
    case 'setSecret':
      return;
    case 'testSecret': {
      const raw = await pending();
      if (raw === undefined || !(await isUsableKeySet(parseSignerKeySet(raw), deps.keys))) {
        throw new Error('The pending download signer key set has no active newest key');
      }
      return;
    }
    case 'finishSecret': {
      const previous = currentVersionId(versions);
      if (!previous) throw new Error('The download signer secret has no current version');
      await deps.secret.makeCurrent(versionId, previous);
      return;
    }
  }
};
