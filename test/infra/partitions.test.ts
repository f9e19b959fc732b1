import { beforeAll, describe, expect, it, vi } from 'vitest';
import {
  INDEX_PARTITIONS,
  type IndexPartition,
  stringLikeRegExp,
  TABLE_PARTITIONS,
  type TablePartition,
} from '../../lib/grants/partitions';

/** One key of each partition family, built by the data modules themselves. */
let tableKeys: Record<TablePartition, string>;
let indexKeys: Record<IndexPartition, string>;

beforeAll(async () => {
  // The data modules read their configuration on import.
  vi.stubEnv('TABLE_NAME', 'infra-test-table');
  vi.stubEnv('BUCKET_NAME', 'infra-test-bucket');
  vi.stubEnv('AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED', 'true');
  const { newCompanyId } = await import('../../functions/shared/ids');
  const { apiKeyKey, apiKeyListKey, hashApiKey } = await import('../../functions/shared/data/api-keys');
  const { planKey } = await import('../../functions/shared/data/plans');
  const { companyKey } = await import('../../functions/shared/data/companies');
  const { usageMonthKey } = await import('../../functions/shared/data/usage-meters');
  const { idempotencyKey } = await import('../../functions/shared/data/idempotency');
  const { credentialsPartition } = await import('../../functions/shared/data/credentials');
  const { itemPartition, indexPartition } = await import('../../functions/shared/data/dynadata-items');
  const { undeliveredMessageIndexKey } = await import('../../functions/shared/data/undelivered-messages');
  const { scheduledMessageIndexKey } = await import('../../functions/shared/data/scheduled-messages');
  const { dynadataTypeKey } = await import('../../functions/shared/data/dynadata-types');
  const { legacyLogEntryKey, logDayKey, logEntryKey } = await import(
    '../../functions/shared/data/log-entries'
  );
  const { deliveryChannelKey } = await import('../../functions/shared/data/delivery-channels');
  const { fileListKey, storedObjectKey } = await import('../../functions/shared/data/stored-objects');
  const { transcodeStore } = await import('../../functions/shared/data/transcode-jobs');
  const { transcriptionStore } = await import('../../functions/shared/data/transcription-jobs');
  const { createJobLifecycle } = await import('../../functions/shared/data/jobs/lifecycle');
  const transcodeJobs = createJobLifecycle(transcodeStore);
  const transcriptionJobs = createJobLifecycle(transcriptionStore);
  const { SPEECH_JOB_STORE } = await import('../../functions/shared/data/speech-jobs');
  const speechJobs = createJobLifecycle(SPEECH_JOB_STORE);
  const { workflowPartition } = await import('../../functions/shared/data/workflows');
  const { workflowSecretKey } = await import('../../functions/shared/data/workflow-secrets');
  const { workflowRunKey, unfinishedRunIndexKey } = await import(
    '../../functions/shared/data/workflow-runs/runs'
  );
  const { eventKey } = await import('../../functions/shared/data/events');
  const { endpointKey } = await import('../../functions/shared/data/webhook-endpoints');
  const { deliveryLogIndexKey } = await import('../../functions/shared/data/webhook-delivery-entities');
  vi.unstubAllEnvs();
  const co = newCompanyId();
  tableKeys = {
    apiKeys: apiKeyKey(hashApiKey('sk-example')).pk,
    plans: planKey('starter').pk,
    company: companyKey(co).pk,
    usage: usageMonthKey(co, '2026-11').pk,
    idempotency: idempotencyKey(co, 'createItem', 'k').pk,
    credentials: credentialsPartition(co),
    dynadataItems: itemPartition(co, 'contacts'),
    dynadataTypes: dynadataTypeKey(co, 'contacts').pk,
    logEntries: legacyLogEntryKey(co, 0, 'r').pk,
    logEntryShards: logEntryKey(co, 0, 'r').pk,
    logEntryDays: logDayKey(co, '20261129').pk,
    deliveryChannel: deliveryChannelKey(co).pk,
    storedObjects: storedObjectKey(co, `companies/${co}/a/b.txt`).pk,
    transcodes: transcodeJobs.jobKey(co, 'tc_1').pk,
    transcriptions: transcriptionJobs.jobKey(co, 'tr_1').pk,
    speechJobs: speechJobs.jobKey(co, 'sj_1').pk,
    workflows: workflowPartition(co),
    workflowSecrets: workflowSecretKey(co, 'API_TOKEN').pk,
    workflowRuns: workflowRunKey(co, 'wr_1').pk,
    events: eventKey(co, 'evt_1').pk,
    webhooks: endpointKey(co, 'we_1').pk,
  };
  indexKeys = {
    dynadataIndex: indexPartition(co, 'contacts'),
    apiKeyList: apiKeyListKey(co, '', '').gsi1pk,
    storedFiles: fileListKey(`companies/${co}/uploads/a/b.txt`)?.gsi1pk ?? '',
    unfinishedTranscodes: transcodeJobs.unfinishedIndexKey(co, 'tc_1').workpk,
    unfinishedTranscriptions: transcriptionJobs.unfinishedIndexKey(co, 'tr_1').workpk,
    unfinishedSpeechJobs: speechJobs.unfinishedIndexKey(co, 'sj_1').workpk,
    unfinishedWorkflowRuns: unfinishedRunIndexKey(co, 'wr_1').workpk,
    undeliveredMessages: undeliveredMessageIndexKey(co, 'msg_1').workpk,
    scheduledMessages: scheduledMessageIndexKey(co, 'msg_1', '2026-01-01T00:00:00.000Z').workpk,
    webhookDeliveryLog: deliveryLogIndexKey(co, 'we_1', 'evt_1').workpk,
  };
});

describe('table partition patterns', () => {
  it('match the keys the data modules build, and no key of another partition family', () => {
    for (const [name, pattern] of Object.entries(TABLE_PARTITIONS)) {
      for (const [other, key] of Object.entries(tableKeys)) {
        expect(stringLikeRegExp(pattern).test(key), `${name} ~ ${other} (${key})`).toBe(name === other);
      }
    }
  });

  it('match the index partitions the data modules build, and no other', () => {
    for (const [name, pattern] of Object.entries(INDEX_PARTITIONS)) {
      for (const [other, key] of Object.entries(indexKeys)) {
        expect(stringLikeRegExp(pattern).test(key), `${name} ~ ${other} (${key})`).toBe(name === other);
      }
      expect(
        Object.values(tableKeys).some((key) => stringLikeRegExp(pattern).test(key)),
        name,
      ).toBe(false);
    }
  });

  it('are the partition families of the key catalogue, every one of them and no other', async () => {
    const { partitions, indexPartitions } = await import('../../functions/shared/data/keys');
    expect(Object.keys(TABLE_PARTITIONS).sort()).toEqual(Object.keys(partitions).sort());
    expect(Object.keys(INDEX_PARTITIONS).sort()).toEqual(Object.keys(indexPartitions).sort());
    expect(Object.keys(tableKeys).sort()).toEqual(Object.keys(partitions).sort());
    expect(Object.keys(indexKeys).sort()).toEqual(Object.keys(indexPartitions).sort());
  });

  it('reads ? as exactly one character and * as any run', () => {
    expect(stringLikeRegExp('CO#??').test('CO#ab')).toBe(true);
    expect(stringLikeRegExp('CO#??').test('CO#abc')).toBe(false);
    expect(stringLikeRegExp('a.b*').test('axb')).toBe(false);
    expect(stringLikeRegExp('a.b*').test('a.bcd')).toBe(true);
  });
});
