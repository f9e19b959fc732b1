import type { Plan } from '../types/plans';

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;

/**
 * The plan catalog the platform ships: the starting catalog of a local stack (operators replace it with
 * `admin plans put`) and the source of the API Gateway usage plans (one per plan, throttled at the plan's
 * `requestsPerSecond` and `burst`; `lib/constructs/request-rates.ts`).
 */
export const DEFAULT_PLANS: Plan[] = [
  {
    id: 'free',
    name: 'Free',
    description: 'For trying the API.',
    sellable: true,
    price: { amount: 0, currency: 'USD', interval: 'month' },
    limits: {
      apiRequestsPerMonth: 10_000,
      requestsPerSecond: 10,
      burst: 20,
      storageBytes: 1 * GIB,
      maxObjectBytes: 25 * MIB,
      databaseBytes: 100 * MIB,
      transcodeSecondsPerMonth: 600,
      transcodeQueueCap: 2,
      transcodeMaxSourceBytes: 100 * MIB,
      transcodeMaxDurationSeconds: 600,
      transcriptionSecondsPerMonth: 600,
      transcriptionQueueCap: 2,
      transcriptionMaxSourceBytes: 100 * MIB,
      transcriptionMaxDurationSeconds: 600,
      speechCharactersPerMonth: 20_000,
      workflowRunsPerMonth: 100,
      logRetentionDays: 7,
      webhookEndpoints: 3,
    },
  },
  {
    id: 'starter',
    name: 'Starter',
    description: 'For small teams in production.',
    sellable: true,
    price: { amount: 4900, currency: 'USD', interval: 'month' },
    limits: {
      apiRequestsPerMonth: 500_000,
      requestsPerSecond: 50,
      burst: 100,
      storageBytes: 50 * GIB,
      maxObjectBytes: 500 * MIB,
      databaseBytes: 5 * GIB,
      transcodeSecondsPerMonth: 36_000,
      transcodeQueueCap: 10,
      transcodeMaxSourceBytes: 2 * GIB,
      transcodeMaxDurationSeconds: 4 * 3600,
      transcriptionSecondsPerMonth: 36_000,
      transcriptionQueueCap: 10,
      transcriptionMaxSourceBytes: 2 * GIB,
      transcriptionMaxDurationSeconds: 4 * 3600,
      speechCharactersPerMonth: 1_000_000,
      workflowRunsPerMonth: 10_000,
      logRetentionDays: 30,
      webhookEndpoints: 10,
    },
  },
  {
    id: 'legacy-pro',
    name: 'Pro (legacy)',
    description: 'No longer on sale; existing subscriptions continue.',
    sellable: false,
    price: { amount: 19900, currency: 'USD', interval: 'month' },
    limits: {
      apiRequestsPerMonth: 5_000_000,
      requestsPerSecond: 200,
      burst: 400,
      storageBytes: 500 * GIB,
      maxObjectBytes: 5 * GIB,
      databaseBytes: 50 * GIB,
      transcodeSecondsPerMonth: 360_000,
      transcodeQueueCap: 50,
      transcodeMaxSourceBytes: 5 * GIB,
      transcodeMaxDurationSeconds: 12 * 3600,
      transcriptionSecondsPerMonth: 360_000,
      transcriptionQueueCap: 50,
      transcriptionMaxSourceBytes: 5 * GIB,
      transcriptionMaxDurationSeconds: 4 * 3600,
      speechCharactersPerMonth: 10_000_000,
      workflowRunsPerMonth: 100_000,
      logRetentionDays: 90,
      webhookEndpoints: 50,
    },
  },
];
