import { describe, expect, it } from 'vitest';
import { auth, type Tenant } from './storage-uploads';
import { call, createTenant, runAdmin } from './support';

/**
 * `admin files reindex`: stored objects recorded before the file list existed (no `gsi1` attributes) are not
 * listed until the operator backfill gives them their index attributes; it is re-runnable and bounded.
 */
const listed = async (tenant: Tenant) => {
  const res = await call('GET', '/v1/storage/files', { headers: auth(tenant) });
  expect(res.status).toBe(200);
  return (res.json.files as { fullPath: string }[]).map((file) => file.fullPath);
};

/** A stored-object item as versions before the file list wrote it: no index attributes. */
const writeUnindexedRecord = async (companyId: string, status: 'stored' | 'pending' = 'stored') => {
  const { ddb, tableName } = await import('../../functions/shared/data/client');
  const { storedObjectKey, STORED_OBJECT_ENTITY } = await import(
    '../../functions/shared/data/stored-objects'
  );
  const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
  const fullPath = `companies/${companyId}/uploads/${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}/old.pdf`;
  const record =
    status === 'stored'
      ? { status, size: 10, contentType: 'application/pdf', etag: 'e', createdAt: '2025-01-02T03:04:05.000Z' }
      : {
          status,
          declaredSize: 10,
          declaredContentType: 'application/pdf',
          fileName: 'old.pdf',
          reservedAt: '2025-01-02T03:04:05.000Z',
          expiresAt: '2025-01-02T03:19:05.000Z',
        };
  await ddb.send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...storedObjectKey(companyId, fullPath),
        entity: STORED_OBJECT_ENTITY,
        bucket: process.env.BUCKET_NAME ?? '',
        fullPath,
        ...record,
      },
    }),
  );
  return fullPath;
};

const reindex = async (...args: string[]) => {
  const run = await runAdmin('files', 'reindex', ...args, '--json');
  expect(run.err).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.out) as {
    indexed: number;
    alreadyIndexed: number;
    pages: number;
    cursor: string | null;
  };
};

describe('admin files reindex', () => {
  it("lists a company's files stored before the file list once reindexed, and indexes nothing twice", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const old = await writeUnindexedRecord(tenant.companyId);
    const reservation = await writeUnindexedRecord(tenant.companyId, 'pending');
    const othersOld = await writeUnindexedRecord(other.companyId);
    expect(await listed(tenant)).toEqual([]);

    const first = await reindex('--company', tenant.companyId, '--page-size', '50');
    expect(first).toMatchObject({ indexed: 1, alreadyIndexed: 0, cursor: null });
    expect(first.pages).toBeGreaterThanOrEqual(1);
    expect(await listed(tenant)).toEqual([old]);
    expect(await listed(tenant)).not.toContain(reservation);
    // Only the company named: the other company's old file is still unlisted.
    expect(await listed(other)).toEqual([]);

    // Re-running finds nothing left to do.
    expect(await reindex('--company', tenant.companyId)).toMatchObject({ indexed: 0, cursor: null });
    expect(await reindex('--company', other.companyId)).toMatchObject({ indexed: 1, cursor: null });
    expect(await listed(other)).toEqual([othersOld]);
  });

  it('stops after --max pages with a cursor to go on from, and refuses a cursor it did not print', async () => {
    const tenant = await createTenant();
    const stopped = await reindex('--company', tenant.companyId, '--page-size', '1', '--max', '1');
    expect(stopped.pages).toBe(1);
    expect(stopped.cursor).toEqual(expect.any(String));
    const text = await runAdmin(
      'files',
      'reindex',
      '--company',
      tenant.companyId,
      '--page-size',
      '1',
      '--max',
      '1',
    );
    expect(text.out).toMatch(/not finished: go on with --from \S+$/);
    const resumed = await reindex(
      '--company',
      tenant.companyId,
      '--from',
      String(stopped.cursor),
      '--max',
      '1',
    );
    expect(resumed.pages).toBe(1);

    const bad = await runAdmin('files', 'reindex', '--from', 'not-a-cursor');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--from must be a cursor');
    expect((await runAdmin('files', 'reindex', '--page-size', '0')).code).toBe(2);
  });
});
