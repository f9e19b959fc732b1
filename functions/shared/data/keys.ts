/**
 * The one catalogue of the single table's keys: every partition key, index partition key and sort-key
 * prefix is written here and nowhere else (a unit test greps the runtime code for stray prefixes). The
 * strings are permanent once items exist, so a builder's output must never change: existing tables keep
 * working only if every key stays byte-identical.
 *
 * It is pure (it imports nothing), so the CDK code derives the IAM partition list from it
 * (`lib/grants/partitions.ts`) and both sides cannot drift. A partition family is a builder whose first
 * argument is the company id for tenant partitions.
 */

const TENANT = 'CO#';
const tenant = (companyId: string, suffix = ''): string => `${TENANT}${companyId}${suffix}`;

/** Partition keys (`pk`) of the table, one builder per partition family. */
export const partitions = {
  /** `APIKEY#<sha256>`: one lookup item per API key (holds the key hash). */
  apiKeys: (keyHash: string) => `APIKEY#${keyHash}`,
  /** `PLAN`: the plan catalogue. */
  plans: () => 'PLAN',
  /** `CO#<companyId>`: the company profile. */
  company: (companyId: string) => tenant(companyId),
  /** `CO#<companyId>#USAGE`: usage meters (month figures and totals). */
  usage: (companyId: string) => tenant(companyId, '#USAGE'),
  /**
   * `CO#<companyId>#CRED`: minted-token records (never the tokens), credential revocations and the number of
   * the company's active API keys.
   */
  credentials: (companyId: string) => tenant(companyId, '#CRED'),
  /** `CO#<companyId>#IDEM`: idempotency records. */
  idempotency: (companyId: string) => tenant(companyId, '#IDEM'),
  /** `CO#<companyId>#DD#<type>`: Dynadata items (contacts and messages included). */
  dynadataItems: (companyId: string, typeName: string) => tenant(companyId, `#DD#${typeName}`),
  /**
   * `CO#<companyId>#DDTYPE`: custom type records (sort key: the type's name) and every type's counter item
   * (`sortKeys.typeCounter`).
   */
  dynadataTypes: (companyId: string) => tenant(companyId, '#DDTYPE'),
  /**
   * `CO#<companyId>#LOG`: log entries written before the audit trail was sharded (read until they expire;
   * `docs/decisions/0038-sharded-audit-partition.md`).
   */
  logEntries: (companyId: string) => tenant(companyId, '#LOG'),
  /** `CO#<companyId>#LOG#<UTC day yyyymmdd>#<shard>`: log entries of one day and shard (the `log_entries` type). */
  logEntryShards: (companyId: string, day: string, shard: string) =>
    tenant(companyId, `#LOG#${day}#${shard}`),
  /** `CO#<companyId>#LOGDAYS`: one item per UTC day that holds log entries (which shards a list merges). */
  logEntryDays: (companyId: string) => tenant(companyId, '#LOGDAYS'),
  /** `CO#<companyId>#CHANNEL`: the company's webhook delivery channel. */
  deliveryChannel: (companyId: string) => tenant(companyId, '#CHANNEL'),
  /** `CO#<companyId>#OBJ#<fullPath>`: stored object records. */
  storedObjects: (companyId: string, fullPath: string) => tenant(companyId, `#OBJ#${fullPath}`),
  /** `CO#<companyId>#TRANSCODE`: transcode jobs, queue and reuse entries. */
  transcodes: (companyId: string) => tenant(companyId, '#TRANSCODE'),
  /** `CO#<companyId>#TRANSCRIPTION`: transcription jobs, queue and reuse entries. */
  transcriptions: (companyId: string) => tenant(companyId, '#TRANSCRIPTION'),
  /** `CO#<companyId>#SPEECHJOB`: long-form speech jobs, queue and reuse entries. */
  speechJobs: (companyId: string) => tenant(companyId, '#SPEECHJOB'),
  /** `CO#<companyId>#WF`: workflow definitions (the head item and one item per saved version). */
  workflows: (companyId: string) => tenant(companyId, '#WF'),
  /** `CO#<companyId>#WFSECRET`: the company's workflow secrets, one item per name (values encrypted). */
  workflowSecrets: (companyId: string) => tenant(companyId, '#WFSECRET'),
  /** `CO#<companyId>#WFRUN#<runId>`: one item per workflow run. */
  workflowRuns: (companyId: string, runId: string) => tenant(companyId, `#WFRUN#${runId}`),
  /** `CO#<companyId>#EVENT`: events (the outbox), their webhook deliveries and once-only markers. */
  events: (companyId: string) => tenant(companyId, '#EVENT'),
  /** `CO#<companyId>#WEBHOOK`: webhook endpoints and their count. */
  webhooks: (companyId: string) => tenant(companyId, '#WEBHOOK'),
} as const;

/**
 * `CO#<companyId>#WFRUN#LIST#<workflowId>`: a workflow's run list, one entry per run. It sits in the runs'
 * partition family (run ids start `wr_`, so no run is named `LIST#…`): whoever writes runs writes their entries.
 */
export const workflowRunList = (companyId: string, workflowId: string) =>
  partitions.workflowRuns(companyId, `LIST#${workflowId}`);

/**
 * `CO#<companyId>#DD#messages#THREAD#<contactId>`: a contact's message thread, one entry per message (sort key
 * its `_id`, a ULID: time order). It sits in the Dynadata items' partition family (a type name holds no `#`,
 * so no type is named `messages#THREAD#…`): whoever writes messages writes their entries.
 */
export const messageThread = (companyId: string, contactId: string) =>
  partitions.dynadataItems(companyId, `messages#THREAD#${contactId}`);

/** Partition keys (`gsi1pk`) of `gsi1`. */
export const indexPartitions = {
  /** `CO#<companyId>#DD#<type>#IX`: the indexed fields of a Dynadata type (also `gsi2pk`, `gsi3pk`). */
  dynadataIndex: (companyId: string, typeName: string) =>
    `${partitions.dynadataItems(companyId, typeName)}#IX`,
  /** `CO#<companyId>#FILES`: a company's stored objects, by `fullPath` (a prefix is a `begins_with`). */
  storedFiles: (companyId: string) => tenant(companyId, '#FILES'),
  /** `CO#<companyId>#APIKEYS`: a company's API keys (the items hold key hashes). */
  apiKeyList: (companyId: string) => tenant(companyId, '#APIKEYS'),
  /** `TRANSCODE#UNFINISHED`: unfinished transcode jobs of every company. */
  unfinishedTranscodes: () => 'TRANSCODE#UNFINISHED',
  /** `TRANSCRIPTION#UNFINISHED`: unfinished transcription jobs of every company. */
  unfinishedTranscriptions: () => 'TRANSCRIPTION#UNFINISHED',
  /** `SPEECHJOB#UNFINISHED`: unfinished speech jobs of every company. */
  unfinishedSpeechJobs: () => 'SPEECHJOB#UNFINISHED',
  /** `WFRUN#UNFINISHED`: running workflow runs of every company. */
  unfinishedWorkflowRuns: () => 'WFRUN#UNFINISHED',
  /** `CO#<companyId>#WHDL#<endpointId>`: the deliveries of one webhook endpoint, by event id (its log). */
  webhookDeliveryLog: (companyId: string, endpointId: string) => tenant(companyId, `#WHDL#${endpointId}`),
  /** `MESSAGE#UNDELIVERED`: messages still `queued` for delivery, of every company. */
  undeliveredMessages: () => 'MESSAGE#UNDELIVERED',
  /** `MESSAGE#SCHEDULED`: messages `scheduled` for a later time, of every company, by that time. */
  scheduledMessages: () => 'MESSAGE#SCHEDULED',
} as const;

/**
 * Sort keys (`sk`) and their prefixes. A builder called with `''` gives the prefix a `begins_with` query
 * names (`sortKeys.event('')` is `EV#`).
 */
export const sortKeys = {
  companyProfile: 'PROFILE',
  apiKey: 'APIKEY',
  usageTotals: 'TOTALS',
  usageMonth: (month: string) => `M#${month}`,
  /** One shard of a month's `api_requests` count (`docs/decisions/0037-sharded-api-requests-meter.md`). */
  usageMonthShard: (month: string, shard: number) => `M#${month}#S${String(shard).padStart(2, '0')}`,
  /** The item of a month's billing family (`usage-families.ts`), beside the month item. */
  usageMonthFamily: (month: string, family: string) => `M#${month}#${family}`,
  /** A UTC day's figures; not `M#…`, so the stream filter of usage thresholds sees month items only. */
  usageDay: (date: string) => `D#${date}`,
  /**
   * A Dynadata type's counter item (its item count, bytes and the version item writes are conditional on), in
   * the company's `dynadataTypes` partition; type names are lower case, so every counter sorts before every
   * type record and the counters of a company are one key range (`docs/decisions/0049-dynadata-type-counter-item.md`).
   */
  typeCounter: (typeName: string) => `TYPECOUNT#${typeName}`,
  mintedToken: (jti: string) => `TOKEN#${jti}`,
  /** The number of a company's active API keys (in its `credentials` partition), kept within the limit. */
  apiKeyCount: 'KEYCOUNT',
  revocation: (credentialId: string) => `REVOKED#${credentialId}`,
  idempotency: (scope: string, key: string) => `${scope}#${key}`,
  deliveryChannel: 'webhook',
  logEntry: (timeEpochMs: number, requestId: string) =>
    `${String(timeEpochMs).padStart(15, '0')}#${requestId}`,
  storedObject: 'OBJECT',
  job: (jobId: string) => `JOB#${jobId}`,
  jobQueue: 'QUEUE',
  reuse: (key: string) => `REUSE#${key}`,
  workflowHead: (workflowId: string) => `WF#${workflowId}`,
  /** A workflow's triggers (`WFTRIG#<id>`, in the definitions' partition; not `WF#…`, so not a head). */
  workflowTrigger: (workflowId: string) => `WFTRIG#${workflowId}`,
  /** The number of a company's workflows (in its `workflows` partition), kept within its plan's `workflows`. */
  workflowCount: 'COUNT',
  /** A run's entry in its workflow's run list (`workflowRunList`); run ids are ULIDs: time order. */
  workflowRunEntry: (runId: string) => `RUN#${runId}`,
  workflowVersion: (workflowId: string, version: number) =>
    `WFV#${workflowId}#${String(version).padStart(6, '0')}`,
  workflowRun: 'RUN',
  /** A secret an async run's step produced (a minted token), sealed, in the run's partition. */
  workflowRunSecret: (stepId: string) => `SECRET#${stepId}`,
  /**
   * One item's result of a run's `forEach` step (`FE#<stepId>#<index>`, beside the run's item); called with
   * `''` as index it gives the prefix of the step's items (the index is padded: the sort key orders them).
   */
  workflowForEachItem: (stepId: string, index: number | '') =>
    `FE#${stepId}#${index === '' ? '' : String(index).padStart(6, '0')}`,
  event: (eventId: string) => `EV#${eventId}`,
  /** The first sort key after every event of the partition (`$` follows `#`), the upper bound of a page. */
  afterEvents: 'EV$',
  eventMarker: (marker: string) => `ONCE#${marker}`,
  delivery: (eventId: string, endpointId: string) => `DL#${eventId}#${endpointId}`,
  /** Every delivery of one event: the prefix of `delivery(eventId, …)`. */
  deliveriesOf: (eventId: string) => `DL#${eventId}#`,
  webhookEndpoint: (endpointId: string) => `EP#${endpointId}`,
  webhookCount: 'COUNT',
} as const;

/**
 * The keys of the webhook lanes that FIFO message groups replaced (decision 0060), still in tables that had
 * them: read and removed only by the operator command `webhooks resend-lanes` (`data/retired-webhook-lanes.ts`).
 * Apart from `partitions` and `indexPartitions`, so no function is granted them (`lib/grants/partitions.ts`).
 */
export const retiredLaneKeys = {
  /** `CO#<companyId>#WHLANE#<endpointId>#<resourceId>`: a lane (its head item and queued entries). */
  partition: (companyId: string, endpointId: string, resourceId: string) =>
    tenant(companyId, `#WHLANE#${endpointId}#${resourceId}`),
  /** `WHLANE#UNFINISHED` (`workpk`): the lanes that carried deliveries; their `worksk` is the lane's partition. */
  unfinished: 'WHLANE#UNFINISHED',
  /** The lane's head item: its identity, `pending` count, owner and lease, and the `fast` delivery. */
  head: 'LANE',
  /** A queued delivery, by event id (oldest first); `entry('')` is the prefix. */
  entry: (eventId: string) => `Q#${eventId}`,
} as const;

/** The sort key of an item in a sparse index partition of unfinished work: the company, then the item. */
export const unfinishedSortKey = (companyId: string, id: string): string => `${companyId}#${id}`;

/** The company of a tenant partition key of the family `family`, or undefined when `pk` is not one. */
const companyOfPartition = (pk: string, family: (companyId: string) => string): string | undefined => {
  const prefix = family('');
  if (!pk.startsWith(TENANT) || !pk.endsWith(prefix.slice(TENANT.length))) return undefined;
  const companyId = pk.slice(TENANT.length, pk.length - (prefix.length - TENANT.length));
  return companyId === '' ? undefined : companyId;
};

/** The company of a usage partition key, or undefined when `pk` is not one. */
export const companyOfUsagePartition = (pk: string): string | undefined =>
  companyOfPartition(pk, partitions.usage);

/** The company of a Dynadata types partition key, or undefined when `pk` is not one. */
export const companyOfTypesPartition = (pk: string): string | undefined =>
  companyOfPartition(pk, partitions.dynadataTypes);

/**
 * The company and type of a Dynadata items' partition key (`partitions.dynadataItems`), or undefined when `pk`
 * is none (a type name holds no `#`, so a message thread's partition is none either).
 */
export const typeOfItemsPartition = (pk: string): { companyId: string; typeName: string } | undefined => {
  const match = /^CO#([^#]+)#DD#([^#]+)$/.exec(pk);
  return match?.[1] && match[2] ? { companyId: match[1], typeName: match[2] } : undefined;
};

/**
 * The month of a usage month's sort key (the month item's, one of its shards' or one of its family items'), with
 * the shard's number for a shard and the family's name for a family item; undefined when `sk` is none of them.
 */
export const monthOfUsageSortKey = (
  sk: string,
): { month: string; shard?: number; family?: string } | undefined => {
  const match = /^M#(\d{4}-\d{2})(?:#S(\d{2})|#([a-z]+))?$/.exec(sk);
  if (!match?.[1]) return undefined;
  if (match[2] !== undefined) return { month: match[1], shard: Number(match[2]) };
  return match[3] === undefined ? { month: match[1] } : { month: match[1], family: match[3] };
};

/** The prefix every usage month's sort key starts with (the stream filter of the event dispatcher). */
export const USAGE_MONTH_SORT_KEY_PREFIX = sortKeys.usageMonth('');
