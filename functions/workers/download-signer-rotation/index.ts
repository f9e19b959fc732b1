import { iamAccessKeys } from '../../shared/aws/iam-access-keys';
import { secretVersions } from '../../shared/aws/secret-versions';
import { env } from '../../shared/env';
import { logger } from '../../shared/observability/logger';
import { createHandler } from '../../shared/pipeline/handler';
import { type RotationStep, runRotationStep } from './steps';

interface RotationEvent {
  SecretId: string;
  ClientRequestToken: string;
  Step: RotationStep;
}

/**
 * The Secrets Manager rotation function of the download signer's secret (scheduled by the data stack): it
 * rotates only that secret and only its user's access keys, whatever the event names.
 */
export const handler = createHandler(
  async (event: RotationEvent): Promise<void> => {
    const { downloadSignerSecretArn, downloadSignerUserName } = env();
    if (!downloadSignerSecretArn || !downloadSignerUserName) {
      throw new Error('DOWNLOAD_SIGNER_SECRET_ARN and DOWNLOAD_SIGNER_USER_NAME must be set');
    }
    if (event.SecretId !== downloadSignerSecretArn) {
      throw new Error(`This function rotates only ${downloadSignerSecretArn}, not ${event.SecretId}`);
    }
    logger.info('download signer rotation step', { step: event.Step, versionId: event.ClientRequestToken });
    await runRotationStep(event.Step, event.ClientRequestToken, {
      secret: secretVersions(downloadSignerSecretArn),
      keys: iamAccessKeys(downloadSignerUserName),
      now: () => new Date(),
    });
  },
  (event) => ({ step: event.Step }),
);
