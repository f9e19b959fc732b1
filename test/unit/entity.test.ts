import { beforeAll, describe, expect, it, vi } from 'vitest';

type EntityModule = typeof import('../../functions/shared/data/entity');
let entity: EntityModule;
let toPlan: typeof import('../../functions/shared/data/plans').toPlan;
let toTranscodeJob: (item: Record<string, unknown>) => { status: string };
let zm: typeof import('../../functions/shared/zod-mini');

beforeAll(async () => {
  // The data modules read their configuration on import.
  vi.stubEnv('TABLE_NAME', 'unit-test-table');
  vi.stubEnv('BUCKET_NAME', 'unit-test-bucket');
  entity = await import('../../functions/shared/data/entity');
  ({ toPlan } = await import('../../functions/shared/data/plans'));
  const { transcodeStore } = await import('../../functions/shared/data/transcode-jobs');
  const { createJobLifecycle } = await import('../../functions/shared/data/jobs/lifecycle');
  toTranscodeJob = createJobLifecycle(transcodeStore).toJob;
  zm = await import('../../functions/shared/zod-mini');
  vi.unstubAllEnvs();
});

const Thing = () =>
  entity.defineEntity({
    name: 'thing',
    key: (companyId: string, id: string) => ({ pk: `tenant-${companyId}`, sk: id }),
    schema: zm.object({ id: zm.string(), size: zm.number(), note: zm.optional(zm.string()) }),
  });

describe('entities', () => {
  it('decode a stored item into its record, without the system attributes', () => {
    const stored = { pk: 'tenant-co_1', sk: 't1', entity: 'thing', ttl: 1, gsi1pk: 'x', id: 't1', size: 3 };
    expect(Thing().decode(stored)).toEqual({ id: 't1', size: 3 });
  });

  it('refuse a corrupt item with an error that names the entity and the key', () => {
    const stored = { pk: 'tenant-co_1', sk: 't1', entity: 'thing', id: 't1', size: 'three' };
    expect(() => Thing().decode(stored)).toThrow(entity.CorruptItemError);
    expect(() => Thing().decode(stored)).toThrow(/thing item \(pk tenant-co_1, sk t1\).*size/);
  });

  it('write the record at its key with its entity name, and a conditional put as a transaction item', () => {
    const thing = Thing();
    const key = thing.key('co_1', 't1');
    expect(thing.item(key, { id: 't1', size: 3 }, { ttl: 9 })).toEqual({
      pk: 'tenant-co_1',
      sk: 't1',
      ttl: 9,
      entity: 'thing',
      id: 't1',
      size: 3,
    });
    expect(
      entity.putItem(
        thing,
        key,
        { id: 't1', size: 3 },
        { condition: { expression: 'attribute_not_exists(pk)' } },
      ),
    ).toEqual({
      Put: {
        TableName: 'unit-test-table',
        Item: { pk: 'tenant-co_1', sk: 't1', entity: 'thing', id: 't1', size: 3 },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    });
  });

  it('refuse a stored plan without its price, naming the plan', () => {
    expect(() => toPlan({ pk: 'PLAN', sk: 'p', entity: 'plan', id: 'p', name: 'P', limits: {} })).toThrow(
      /plan item \(pk PLAN, sk p\).*price/,
    );
  });

  it('refuse a transcode job whose status is not one of the type', () => {
    const job = {
      pk: 'CO#co_1#TRANSCODE',
      sk: 'JOB#tc_1',
      jobId: 'tc_1',
      companyId: 'co_1',
      status: 'exploded',
      attempt: 1,
      reused: false,
      billedSeconds: 0,
      preset: 'mp4',
      source: { bucket: 'b', fullPath: 'companies/co_1/a.mp4', size: 1, etag: 'e' },
      createdAt: 't',
      updatedAt: 't',
      attemptStartedAt: 't',
    };
    expect(() => toTranscodeJob(job)).toThrow(
      /transcode_job item \(pk CO#co_1#TRANSCODE, sk JOB#tc_1\).*status/,
    );
    expect(toTranscodeJob({ ...job, status: 'pending' }).status).toBe('pending');
  });
});
