import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { AccountRegistry } from 's3rver/lib/models/account';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Local } from '../../functions/local/s3-local';
import {
  currentSignerKey,
  DOWNLOAD_URL_MAX_SECONDS,
  KEY_RETIREMENT_SECONDS,
  parseSignerKeySet,
  type SignerKey,
} from '../../functions/shared/aws/download-signer-keys';
import type { AccessKeyApi } from '../../functions/shared/aws/iam-access-keys';
import type { SecretVersions } from '../../functions/shared/aws/secret-versions';
import { RotationBlockedError } from '../../functions/workers/download-signer-rotation/rotation';
import { runRotationStep } from '../../functions/workers/download-signer-rotation/steps';

/**
 * The download signer's rotation against a real S3 (the local stack's s3rver): there is no IAM and no Secrets
 * Manager locally, so both are stubbed here, and the IAM stub registers each key it creates with s3rver (and
 * revokes each key it deletes), so the local S3 accepts exactly the URLs that AWS would: its front verifies
 * each URL's signature with the secret of the key the URL names.
 */
const s3rverAccount = (createRequire(import.meta.url)('s3rver/lib/models/account') as AccountRegistry)
  .DUMMY_ACCOUNT;

const DAY_MS = 86_400_000;
const BUCKET = 'signer-rotation';
const OBJECT = 'companies/co_1/files/report.txt';

let clock = new Date('2026-01-01T00:00:00Z');

const iamStub = (): AccessKeyApi & { ids: () => string[] } => {
  const keys = new Map<string, SignerKey>();
  return {
    ids: () => [...keys.keys()],
    list: async () => [...keys.values()].map((k) => ({ accessKeyId: k.accessKeyId, active: true })),
    create: async () => {
      if (keys.size >= 2) throw new Error('LimitExceeded: an IAM user has at most two access keys');
      const key = {
        accessKeyId: `AKIA${randomBytes(8).toString('hex').toUpperCase()}`,
        secretAccessKey: randomBytes(30).toString('base64'),
        createdAt: clock.toISOString(),
      };
      keys.set(key.accessKeyId, key);
      s3rverAccount.createKeyPair(key.accessKeyId, key.secretAccessKey);
      return key;
    },
    remove: async (accessKeyId) => {
      keys.delete(accessKeyId);
      s3rverAccount.revokeAccessKey(accessKeyId);
    },
  };
};

/** Secrets Manager's versions and stages, as a rotation sees them. */
const secretStub = (initial: string): SecretVersions & { start: () => string; current: () => string } => {
  const values = new Map<string, string | undefined>([['v0', initial]]);
  const stages = new Map<string, string[]>([['v0', ['AWSCURRENT']]]);
  const currentId = () => [...stages].find(([, s]) => s.includes('AWSCURRENT'))?.[0] as string;
  return {
    start: () => {
      const id = randomUUID();
      for (const [version, labels] of stages)
        stages.set(
          version,
          labels.filter((l) => l !== 'AWSPENDING'),
        );
      stages.set(id, ['AWSPENDING']);
      return id;
    },
    current: () => values.get(currentId()) as string,
    stages: async () => ({ rotationEnabled: true, versions: Object.fromEntries(stages) }),
    value: async (version) =>
      version === 'AWSCURRENT'
        ? values.get(currentId())
        : stages.get(version.versionId)?.includes('AWSPENDING')
          ? values.get(version.versionId)
          : undefined,
    putPending: async (versionId, value) => {
      values.set(versionId, value);
    },
    makeCurrent: async (versionId, previousVersionId) => {
      stages.set(previousVersionId, ['AWSPREVIOUS']);
      stages.set(versionId, ['AWSCURRENT']);
    },
  } as SecretVersions & { start: () => string; current: () => string };
};

let s3: { endpoint: string; stop: () => Promise<void> };
let dataDir: string;
const iam = iamStub();
const secret = secretStub(JSON.stringify({ keys: [] }));

/** What Secrets Manager does on a rotation: a new pending version, then the four steps in order. */
const rotate = async (keys: AccessKeyApi = iam) => {
  const versionId = secret.start();
  for (const step of ['createSecret', 'setSecret', 'testSecret', 'finishSecret'] as const) {
    await runRotationStep(step, versionId, { secret, keys, now: () => clock });
  }
};

/** A 7-day download URL signed the way the storage group signs: with the newest key of the current set. */
const signWith = (key: Pick<SignerKey, 'accessKeyId' | 'secretAccessKey'>) =>
  getSignedUrl(
    new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: key }),
    new GetObjectCommand({ Bucket: BUCKET, Key: OBJECT }),
    { expiresIn: DOWNLOAD_URL_MAX_SECONDS },
  );
const signNewUrl = () => signWith(currentSignerKey(parseSignerKeySet(secret.current())));
const statusOf = async (url: string) => (await fetch(url)).status;
const keyIdOf = (url: string) => new URL(url).searchParams.get('X-Amz-Credential')?.split('/')[0];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'signer-rotation-'));
  const credentials = {
    accessKeyId: 'ROTATIONADMIN',
    secretAccessKey: randomBytes(30).toString('base64url'),
  };
  s3 = await startS3Local(dataDir, 'us-east-1', credentials);
  const admin = new S3Client({
    region: 'us-east-1',
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials,
  });
  await admin.send(new CreateBucketCommand({ Bucket: BUCKET }));
  await admin.send(new PutObjectCommand({ Bucket: BUCKET, Key: OBJECT, Body: 'quarterly figures' }));
});
afterAll(async () => {
  await s3?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('download signer key rotation against s3rver', () => {
  const urls = { first: '', second: '', third: '' };

  it('creates the first key on the first rotation; URLs it signs download', async () => {
    await rotate();
    urls.first = await signNewUrl();
    expect(await statusOf(urls.first)).toBe(200);
    expect(iam.ids()).toEqual([keyIdOf(urls.first)]);
  });

  it('signs new URLs with a new key, while URLs of the previous key keep working', async () => {
    clock = new Date(clock.getTime() + 14 * DAY_MS);
    await rotate();
    urls.second = await signNewUrl();
    expect(keyIdOf(urls.second)).not.toBe(keyIdOf(urls.first));
    expect(await statusOf(urls.second)).toBe(200);
    expect(await statusOf(urls.first)).toBe(200);
    expect(parseSignerKeySet(secret.current()).keys.map((k) => k.accessKeyId)).toEqual([
      keyIdOf(urls.first),
      keyIdOf(urls.second),
    ]);
  });

  it('refuses an early rotation that would delete a key whose URLs may still be valid', async () => {
    clock = new Date(clock.getTime() + DAY_MS);
    const before = secret.current();
    await expect(rotate()).rejects.toBeInstanceOf(RotationBlockedError);
    expect(secret.current()).toBe(before);
    expect(iam.ids()).toHaveLength(2);
    expect(await statusOf(urls.first)).toBe(200);
  });

  it('deletes the previous key only once the URL lifetime and the margin have passed', async () => {
    const secondCreated = Date.parse(parseSignerKeySet(secret.current()).keys[1]?.createdAt as string);
    clock = new Date(secondCreated + KEY_RETIREMENT_SECONDS * 1000);
    await rotate();
    urls.third = await signNewUrl();
    expect(await statusOf(urls.first)).toBe(403);
    expect(await statusOf(urls.second)).toBe(200);
    expect(await statusOf(urls.third)).toBe(200);
    expect(iam.ids().sort()).toEqual([keyIdOf(urls.second), keyIdOf(urls.third)].sort());
  });

  it('deletes a key a failed rotation created but never stored, at the next rotation', async () => {
    const secondCreated = Date.parse(parseSignerKeySet(secret.current()).keys[1]?.createdAt as string);
    clock = new Date(secondCreated + KEY_RETIREMENT_SECONDS * 1000);
    let orphan: SignerKey | undefined;
    const failing: AccessKeyApi = {
      ...iam,
      // IAM is at its limit (two keys): the rotation first deletes the retired one, then creates the orphan.
      create: async () => {
        orphan = await iam.create();
        throw new Error('the function timed out before it stored the new set');
      },
    };
    const before = secret.current();
    await expect(rotate(failing)).rejects.toThrow(/timed out/);
    expect(secret.current()).toBe(before);
    const orphanUrl = await signWith(orphan as SignerKey);
    expect(await statusOf(orphanUrl)).toBe(200);
    await rotate();
    expect(await statusOf(orphanUrl)).toBe(403);
    expect(iam.ids()).not.toContain(orphan?.accessKeyId);
    expect(await statusOf(await signNewUrl())).toBe(200);
    expect(await statusOf(urls.third)).toBe(200);
  });
});
