/**
 * The partitions of the single table, as IAM `StringLike` patterns of `dynamodb:LeadingKeys` (the partition
 * key the request names: `pk` on the table, `gsi1pk` on `gsi1`). Every tenant partition starts with
 * `CO#<companyId>`; company ids are `co_` and a 26-character ULID (`newCompanyId`), which `?` (exactly one
 * character) pins, so `company` is the profile partition alone and not every partition that starts with it.
 * `test/infra/partitions.test.ts` checks each pattern against the key builders of `functions/shared/data`.
 */
export const COMPANY_ID_PATTERN = `co_${'?'.repeat(26)}`;

const tenant = (suffix: string): string => `CO#${COMPANY_ID_PATTERN}${suffix}`;

/** Partition keys (`pk`) of the table. */
export const TABLE_PARTITIONS = {
  /** `APIKEY#<sha256>`: one lookup item per API key (holds the key hash). */
  apiKeys: 'APIKEY#*',
  /** `PLAN`: the plan catalogue. */
  plans: 'PLAN',
  /** `CO#<companyId>`: the company profile. */
  company: tenant(''),
  /** `CO#<companyId>#USAGE`: usage meters (month figures and totals). */
  usage: tenant('#USAGE'),
  /** `CO#<companyId>#CRED`: minted-token records (never the tokens) and credential revocations. */
  credentials: tenant('#CRED'),
  /** `CO#<companyId>#IDEM`: idempotency records. */
  idempotency: tenant('#IDEM'),
  /** `CO#<companyId>#DD#<type>`: Dynadata items (contacts and messages included). */
  dynadataItems: tenant('#DD#*'),
  /** `CO#<companyId>#DDTYPE`: custom type records and every type's item count. */
  dynadataTypes: tenant('#DDTYPE'),
  /** `CO#<companyId>#LOG`: log entries (the `log_entries` Dynadata type). */
  logEntries: tenant('#LOG'),
  /** `CO#<companyId>#CHANNEL`: the company's webhook delivery channel. */
  deliveryChannel: tenant('#CHANNEL'),
  /** `CO#<companyId>#OBJ#<fullPath>`: stored object records. */
  storedObjects: tenant('#OBJ#*'),
  /** `CO#<companyId>#TRANSCODE`: transcode jobs, queue and reuse entries. */
  transcodes: tenant('#TRANSCODE'),
  /** `CO#<companyId>#TRANSCRIPTION`: transcription jobs, queue and reuse entries. */
  transcriptions: tenant('#TRANSCRIPTION'),
  /** `CO#<companyId>#WF`: workflow definitions (the head item and one item per saved version). */
  workflows: tenant('#WF'),
  /** `CO#<companyId>#WFRUN#<runId>`: one item per workflow run. */
  workflowRuns: tenant('#WFRUN#*'),
  /** `CO#<companyId>#EVENT`: events (the outbox), their webhook deliveries and once-only markers. */
  events: tenant('#EVENT'),
  /** `CO#<companyId>#WEBHOOK`: webhook endpoints and their count. */
  webhooks: tenant('#WEBHOOK'),
  /** `CO#<companyId>#WHLANE#<endpointId>#<resourceId>`: a delivery lane (its lease and queued entries). */
  webhookLanes: tenant('#WHLANE#*'),
} as const;

/** Partition keys (`gsi1pk`) of `gsi1`. */
export const INDEX_PARTITIONS = {
  /** `CO#<companyId>#DD#<type>#IX`: the indexed field of a Dynadata type. */
  dynadataIndex: tenant('#DD#*#IX'),
  /** `CO#<companyId>#APIKEYS`: a company's API keys (the items hold key hashes). */
  apiKeyList: tenant('#APIKEYS'),
  /** `TRANSCODE#UNFINISHED`, `TRANSCRIPTION#UNFINISHED`: unfinished jobs of every company. */
  unfinishedTranscodes: 'TRANSCODE#UNFINISHED',
  unfinishedTranscriptions: 'TRANSCRIPTION#UNFINISHED',
  /** `WFRUN#UNFINISHED`: running workflow runs of every company. */
  unfinishedWorkflowRuns: 'WFRUN#UNFINISHED',
  /** `WHLANE#UNFINISHED`: webhook lanes with deliveries to send, of every company. */
  unfinishedWebhookLanes: 'WHLANE#UNFINISHED',
} as const;

export type TablePartition = keyof typeof TABLE_PARTITIONS;
export type IndexPartition = keyof typeof INDEX_PARTITIONS;

/** An IAM `StringLike` pattern as a regular expression (`*` any run of characters, `?` exactly one). */
export const stringLikeRegExp = (pattern: string): RegExp =>
  new RegExp(
    `^${pattern
      .split('')
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
      .join('')}$`,
  );
