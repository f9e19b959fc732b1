import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { secretsManager } from './secrets-manager';

/**
 * The secret versions a Secrets Manager rotation function works with: the stages of each version, the value
 * of a stage, a new `AWSPENDING` version, and moving `AWSCURRENT` to it.
 */
export interface SecretVersions {
  stages: () => Promise<{ rotationEnabled: boolean; versions: Record<string, string[]> }>;
  /** The value of `AWSCURRENT`, or of the version `versionId` in `AWSPENDING` (undefined when there is none). */
  value: (version: { versionId: string; stage: 'AWSPENDING' } | 'AWSCURRENT') => Promise<string | undefined>;
  putPending: (versionId: string, value: string) => Promise<void>;
  makeCurrent: (versionId: string, previousVersionId: string) => Promise<void>;
}

export const secretVersions = (secretId: string): SecretVersions => ({
  stages: async () => {
    const out = await secretsManager().send(new DescribeSecretCommand({ SecretId: secretId }));
    return { rotationEnabled: out.RotationEnabled === true, versions: out.VersionIdsToStages ?? {} };
  },
  value: async (version) => {
    try {
      const { SecretString } = await secretsManager().send(
        new GetSecretValueCommand(
          version === 'AWSCURRENT'
            ? { SecretId: secretId, VersionStage: 'AWSCURRENT' }
            : { SecretId: secretId, VersionId: version.versionId, VersionStage: version.stage },
        ),
      );
      return SecretString;
    } catch (error) {
      if (error instanceof Error && error.name === 'ResourceNotFoundException') return undefined;
      throw error;
    }
  },
  putPending: async (versionId, value) => {
    await secretsManager().send(
      new PutSecretValueCommand({
        SecretId: secretId,
        ClientRequestToken: versionId,
        SecretString: value,
        VersionStages: ['AWSPENDING'],
      }),
    );
  },
  makeCurrent: async (versionId, previousVersionId) => {
    await secretsManager().send(
      new UpdateSecretVersionStageCommand({
        SecretId: secretId,
        VersionStage: 'AWSCURRENT',
        MoveToVersionId: versionId,
        RemoveFromVersionId: previousVersionId,
      }),
    );
  },
});
