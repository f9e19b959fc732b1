import { describe, expect, it } from 'vitest';
import { toPlan } from '../../functions/shared/data/plans';

describe('stored plans', () => {
  const limits = {
    apiRequestsPerMonth: 1000,
    storageBytes: 10,
    maxObjectBytes: 5,
    databaseBytes: 10,
    transcodeSecondsPerMonth: 600,
    transcodeQueueCap: 2,
    transcodeMaxSourceBytes: 100,
    transcodeMaxDurationSeconds: 600,
    transcriptionSecondsPerMonth: 600,
    speechCharactersPerMonth: 1000,
    workflowRunsPerMonth: 10,
    logRetentionDays: 30,
  };
  const item = {
    pk: 'PLAN',
    sk: 'old',
    entity: 'plan',
    id: 'old',
    name: 'Old',
    description: 'A plan stored before the later limits existed',
    sellable: true,
    price: { amount: 10, currency: 'EUR', interval: 'month' },
    limits,
  };

  it('reads the transcription caps of a plan stored before they existed from the transcode caps', () => {
    expect(toPlan(item).limits).toMatchObject({
      transcriptionQueueCap: 2,
      transcriptionMaxSourceBytes: 100,
      transcriptionMaxDurationSeconds: 600,
    });
  });

  it('gives a plan stored before request rates existed the smallest catalog rate', () => {
    expect(toPlan(item).limits).toMatchObject({ requestsPerSecond: 10, burst: 20 });
    const own = { ...item, limits: { ...limits, requestsPerSecond: 3, burst: 4 } };
    expect(toPlan(own).limits).toMatchObject({ requestsPerSecond: 3, burst: 4 });
  });

  it('keeps the caps a plan sets itself', () => {
    const own = { ...item, limits: { ...limits, transcriptionQueueCap: 7 } };
    expect(toPlan(own).limits.transcriptionQueueCap).toBe(7);
    expect(toPlan(own)).not.toHaveProperty('pk');
  });
});
