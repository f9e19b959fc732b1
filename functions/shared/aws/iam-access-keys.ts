import {
  CreateAccessKeyCommand,
  DeleteAccessKeyCommand,
  IAMClient,
  ListAccessKeysCommand,
} from '@aws-sdk/client-iam';
import { env } from '../env';
import { tracer } from '../observability/tracer';
import type { SignerKey } from './download-signer-keys';

/** The access keys of one IAM user: the three calls the download signer's rotation makes. */
export interface AccessKeyApi {
  /** Every key of the user, active or not. */
  list: () => Promise<{ accessKeyId: string; active: boolean }[]>;
  create: () => Promise<SignerKey>;
  remove: (accessKeyId: string) => Promise<void>;
}

export const iamAccessKeys = (userName: string): AccessKeyApi => {
  const iam = tracer.captureAWSv3Client(new IAMClient({ region: env().region }));
  return {
    list: async () => {
      const { AccessKeyMetadata } = await iam.send(new ListAccessKeysCommand({ UserName: userName }));
      return (AccessKeyMetadata ?? []).flatMap((key) =>
        key.AccessKeyId ? [{ accessKeyId: key.AccessKeyId, active: key.Status === 'Active' }] : [],
      );
    },
    create: async () => {
      const { AccessKey } = await iam.send(new CreateAccessKeyCommand({ UserName: userName }));
      if (!AccessKey?.AccessKeyId || !AccessKey.SecretAccessKey)
        throw new Error('IAM returned no access key');
      return {
        accessKeyId: AccessKey.AccessKeyId,
        secretAccessKey: AccessKey.SecretAccessKey,
        createdAt: (AccessKey.CreateDate ?? new Date()).toISOString(),
      };
    },
    remove: async (accessKeyId) => {
      await iam.send(new DeleteAccessKeyCommand({ UserName: userName, AccessKeyId: accessKeyId }));
    },
  };
};
