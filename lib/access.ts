import type { RouteGroup } from '../functions/shared/routes/route-table';
import { STORED_OBJECT_PREFIXES } from '../functions/shared/types/object-prefixes';
import { combineAccess } from './grants/combine';
import type { FunctionAccess } from './grants/function-access';

export type {
  DataResources,
  FunctionAccess,
} from './grants/function-access';

/**
 * What each function may do: the one place to change a grant. Each entry lists exactly the calls the
 * function's code makes (`test/infra/bundle-grants.test.ts` derives them from its bundle) and the partitions
 * of the table they touch (`lib/grants/partitions.ts`). A new function declares its entry here and passes it
 * to `AppFunction` (`access`), which grants it and puts the resources' names in the environment.
 */

/**
 * Groups with an idempotent route hold `GetItem`, `PutItem`, `UpdateItem` and `DeleteItem` on `idempotency`
 * (`functions/shared/data/idempotency.ts`; `test/infra/access.test.ts` checks it against the route table).
 * The others give this reason for the idempotency calls their bundle holds but never makes.
 */
const NO_IDEMPOTENT_ROUTE =
  'the router stores idempotency records (the idempotency partition) only for routes marked idempotent, and this group has none';

/**
 * Reads an API key by its hash, the company and its plan, and notes when a key was last used (at most once an
 * hour a key: `touchApiKey`); verifies JWTs with the public verification keys only (`jwtPublicKeys`): the
 * authorizer can verify tokens, never sign one. Reads the revocations of a token's id and root credential in
 * one batch.
 */
export const AUTHORIZER_ACCESS: FunctionAccess = {
  table: { GetItem: ['apiKeys', 'company', 'plans'], UpdateItem: ['apiKeys'], BatchGetItem: ['credentials'] },
  secrets: ['jwtPublicKeys'],
};

/**
 * Writes `log_entries` (batches) and adds compute time to the month meter; reads the company and plan. An
 * invocation whose retries run out is parked on its failure queue (`sqs:SendMessage`, sent by Lambda with
 * the role); the operator CLI redrives it (`admin log-shipper redrive`, with the operator's credentials).
 */
export const LOG_SHIPPER_ACCESS: FunctionAccess = {
  table: {
    GetItem: ['company', 'plans'],
    BatchWriteItem: ['logEntryShards', 'logEntryDays'],
    UpdateItem: ['usage'],
  },
  failureQueue: true,
};

const SPEECH_SYNTHESIS = {
  actions: ['polly:SynthesizeSpeech'],
  reason:
    'polly:SynthesizeSpeech names only lexicons as resources and no lexicon is used, so "*" is its resource; ' +
    'xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions.',
};

const MEDIA_PROBE = {
  actions: ['mediaconvert:Probe'],
  reason:
    'mediaconvert:Probe supports no resource-level permissions (the worker probes a tenant source through a ' +
    'presigned URL); xray:PutTraceSegments and xray:PutTelemetryRecords support none either.',
};

/**
 * The Dynadata item calls (`functions/shared/domain/dynadata`: get, list with signed cursors, create, update,
 * delete, upsert, batches, the type list): items and their index, the `log_entries` partition, type records and
 * counts, the company's database bytes and the stored-object records file fields name. An item about to be
 * deleted is marked with the delete's workflow hop first when it holds another (its change event, raised from
 * the table's stream, carries it).
 */
const DYNADATA_ITEMS: FunctionAccess = {
  table: {
    GetItem: ['dynadataItems', 'logEntryShards', 'logEntries', 'dynadataTypes', 'storedObjects'],
    Query: ['dynadataItems', 'logEntryShards', 'logEntries', 'logEntryDays', 'dynadataTypes'],
    // A type's counter item, created from its record by the first write that finds it missing.
    PutItem: ['dynadataItems', 'dynadataTypes'],
    UpdateItem: ['dynadataItems', 'dynadataTypes', 'usage'],
    DeleteItem: ['dynadataItems'],
    ConditionCheckItem: ['dynadataTypes'],
  },
  gsi1: ['dynadataIndex'],
  sortIndexes: ['dynadataIndex'],
  secrets: ['cursorKey'],
};

/**
 * The usage snapshot (`getUsageSnapshot`): company, month figures, totals and plan in one batch; the plan; the
 * query of the company's Dynadata type counters (their bytes are part of `databaseBytes`).
 */
const USAGE_SNAPSHOT: FunctionAccess = {
  table: { GetItem: ['plans'], BatchGetItem: ['company', 'usage', 'plans'], Query: ['dynadataTypes'] },
};

/**
 * The file list and deletion (`functions/shared/domain/storage.ts`): a page of the company's file list (its
 * `gsi1` partition); a delete reads the record, asks the unfinished transcodes and transcriptions of the
 * company whether one reads the file (their sparse `work` partitions, narrowed to the company by sort key,
 * then the jobs by key: `docs/decisions/0026-files-in-use.md`, `0040-keys-only-work-index.md`), deletes the record with its bytes off the totals in one
 * transaction, then the object, under any stored-object prefix.
 */
const FILE_LIST: FunctionAccess = { gsi1: ['storedFiles'] };
const FILE_DELETION: FunctionAccess = {
  table: {
    GetItem: ['storedObjects'],
    BatchGetItem: ['transcodes', 'transcriptions'],
    DeleteItem: ['storedObjects'],
    UpdateItem: ['usage'],
  },
  work: ['unfinishedTranscodes', 'unfinishedTranscriptions'],
  objects: { 's3:DeleteObject': STORED_OBJECT_PREFIXES },
};

/** The usage series: one query over the range of the company's day or month items. */
const USAGE_HISTORY: FunctionAccess = { table: { Query: ['usage'] } };

/**
 * What the actions of a workflow step call (`functions/shared/domain/workflows/actions`): the same domain
 * functions as their routes, without the routes' idempotency and request meter. Enqueueing a transcode or a
 * transcription (company, month and source in one batch, the plan, the job and its queue slot, its
 * execution), speech (the company and month, Polly, the audio object and its billed record), a message to a
 * contact (the contact, the attachment's record, the message with its type's counter item, its
 * delivery), the Dynadata item and list calls. `actions/http/request` and `actions/speech/spoken-text` make no
 * AWS call. Minting a JWT (`actions/security/auth/jwt/generate`) reads the signing keys: only the workflows
 * group, which runs sync runs, holds them (`JWT_MINTING`); the async step worker mints no token.
 */
const WORKFLOW_ACTIONS: FunctionAccess = combineAccess(DYNADATA_ITEMS, USAGE_HISTORY, FILE_LIST, {
  table: {
    GetItem: ['plans', 'dynadataItems', 'storedObjects'],
    // A contact's thread (`list_contact_messages`, `actions/messages/thread`) reads its messages in a batch.
    BatchGetItem: ['company', 'usage', 'storedObjects', 'speechJobs', 'dynadataItems'],
    PutItem: ['transcodes', 'transcriptions', 'speechJobs', 'dynadataItems', 'events'],
    UpdateItem: ['transcodes', 'transcriptions', 'speechJobs', 'storedObjects', 'dynadataTypes', 'usage'],
  },
  // Speech writes its audio (and deletes it when the billing write refuses), a speech job its text (deleted
  // again when the job is refused, reused or does not start; HEADs an earlier result's files before reusing
  // them); enqueueing a transcode reads no object.
  objects: {
    's3:GetObject': ['speechJobs'],
    's3:PutObject': ['speech', 'speechJobs'],
    's3:DeleteObject': ['speech', 'speechJobs'],
  },
  stateMachines: {
    transcode: ['StartExecution'],
    'transcode-audio': ['StartExecution'],
    transcription: ['StartExecution'],
    'speech-job': ['StartExecution'],
    'message-delivery': ['StartExecution'],
  },
  unscoped: [SPEECH_SYNTHESIS],
});

/**
 * Minting a token (`functions/shared/domain/tokens.ts`, the JWT action): the signing keys (private), and the
 * record of the token (its id, root and expiry; never the token) in the credentials partition. The workflows
 * group mints for sync runs, the async step worker for async runs, which keep the token sealed in the run's
 * partition for their later steps (`domain/workflows/run-secrets.ts`: a fresh data key, the item, and the
 * items read back by a later turn). The MCP group never mints.
 */
const JWT_MINTING: FunctionAccess = { table: { PutItem: ['credentials'] }, secrets: ['jwtKeys'] };

/**
 * What a workflow run calls around its steps, sync or async (`functions/shared/domain/workflows`): reads the
 * definition version, the run and the company's limits, reads the workflow secrets its definition references
 * (one batch) and unwraps their data keys (`kms:Decrypt` on the secrets' key alone), records each step on
 * the run item, stores an output over 4 KB as a tenant object (`companies/<id>/workflows/runs/...`: the
 * object, its record and storage bytes), records and reads back the items of a `forEach` step
 * (`data/workflow-runs/for-each-items.ts`, in the run's partition), and finishes the run with its compute time
 * in one transaction.
 */
const WORKFLOW_RUN: FunctionAccess = {
  table: {
    GetItem: ['workflows', 'workflowRuns', 'storedObjects', 'plans'],
    Query: ['workflowRuns'],
    PutItem: ['events'],
    BatchGetItem: ['company', 'workflowSecrets'],
    // The run and its entry in its workflow's run list (`data/workflow-runs/entries.ts`).
    UpdateItem: ['workflowRuns', 'storedObjects', 'usage'],
  },
  objects: { 's3:PutObject': ['workflowRuns'] },
  workflowSecretsKey: ['Decrypt'],
};

/**
 * Storing, reading, listing and deleting workflow secrets (`domain/workflows/vault.ts`): the secret items
 * (each write conditional on the version read, a count before a new one) and a fresh data key per value
 * (`kms:GenerateDataKey` on the secrets' key alone).
 */
const WORKFLOW_SECRETS: FunctionAccess = {
  table: {
    GetItem: ['workflowSecrets'],
    Query: ['workflowSecrets'],
    PutItem: ['workflowSecrets'],
    DeleteItem: ['workflowSecrets'],
  },
  workflowSecretsKey: ['GenerateDataKey'],
};

/**
 * Saving and deleting definitions (`functions/shared/data/workflows.ts`): the head, its versions and the
 * company's workflow count in the `workflows` partition (heads listed to start a count), conditional writes in
 * one transaction.
 */
const WORKFLOW_DEFINITIONS: FunctionAccess = {
  table: { GetItem: ['workflows'], Query: ['workflows'], PutItem: ['workflows'], UpdateItem: ['workflows'] },
};

/** Handing a run to the async engine: its first `workflow-run` queue message (`domain/workflows/run-queue.ts`). */
const RUN_ENGINE: FunctionAccess = { queues: { 'workflow-run': ['SendMessage'] } };

/**
 * The worker of async runs (`functions/workers/workflow-run`): a run and every action; it reads the outputs
 * earlier steps stored as objects back (`s3:GetObject`), since a run spans several messages, and sends the
 * message of the run's next turn (a retry's wait, the rest of a long run). The event source adds the
 * queue's receive actions.
 */
export const WORKFLOW_STEP_ACCESS: FunctionAccess = combineAccess(
  WORKFLOW_ACTIONS,
  WORKFLOW_RUN,
  RUN_ENGINE,
  JWT_MINTING,
  {
    table: { Query: ['workflowRuns'] },
    objects: { 's3:GetObject': ['workflowRuns'] },
    workflowSecretsKey: ['GenerateDataKey'],
  },
);

/**
 * The request meter every authenticated request goes through (`http/meter-api-requests.ts`): one `UpdateItem`
 * of a shard of the month's `api_requests`, the month item's count from before the shards (`GetItem`, read once
 * per process), and an amount spread over the shards (`BatchGetItem` of the shards, then their updates in one
 * transaction; `docs/decisions/0037-sharded-api-requests-meter.md`). Every group but `public` makes these.
 */
const REQUEST_METER: FunctionAccess = {
  table: { GetItem: ['usage'], BatchGetItem: ['usage'], UpdateItem: ['usage'] },
};

const withRequestMeter = (groups: Record<RouteGroup, FunctionAccess>): Record<RouteGroup, FunctionAccess> =>
  Object.fromEntries(
    Object.entries(groups).map(([group, access]) => [
      group,
      group === 'public'
        ? access
        : {
            ...access,
            ...combineAccess(REQUEST_METER, access),
            ...(access.neverCalls ? { neverCalls: access.neverCalls } : {}),
          },
    ]),
  ) as Record<RouteGroup, FunctionAccess>;

export const GROUP_ACCESS: Record<RouteGroup, FunctionAccess> = withRequestMeter({
  // The plan catalogue, without a credential: public routes are never metered and none is idempotent.
  public: {
    table: { Query: ['plans'] },
    neverCalls: {
      'dynamodb:GetItem': NO_IDEMPOTENT_ROUTE,
      'dynamodb:PutItem': NO_IDEMPOTENT_ROUTE,
      'dynamodb:UpdateItem': `${NO_IDEMPOTENT_ROUTE}; public routes carry no company and are not metered`,
      'dynamodb:BatchGetItem': 'public routes carry no company and are not metered (no usage shards to read)',
      'dynamodb:DeleteItem': NO_IDEMPOTENT_ROUTE,
    },
  },
  // The profile and the API-request meter every authenticated request adds to (`http/middleware.ts`), and
  // the company's API keys: the list (`gsi1`), a creation (the key and the count of active
  // keys in one transaction, honouring Idempotency-Key) and a revocation (the key, its revocation record and
  // the count in one transaction).
  company: {
    table: {
      GetItem: ['company', 'idempotency'],
      PutItem: ['apiKeys', 'credentials', 'idempotency'],
      UpdateItem: ['apiKeys', 'credentials', 'usage', 'idempotency'],
      DeleteItem: ['idempotency'],
    },
    gsi1: ['apiKeyList'],
  },
  usage: {
    // Alert thresholds: the company's profile and the month item's stamp, in one transaction.
    ...combineAccess(USAGE_SNAPSHOT, USAGE_HISTORY, { table: { UpdateItem: ['usage', 'company'] } }),
    neverCalls: { 'dynamodb:PutItem': NO_IDEMPOTENT_ROUTE, 'dynamodb:DeleteItem': NO_IDEMPOTENT_ROUTE },
  },
  // send_message: reads the contact (and the attachment's object record), inserts the message (its type's
  // item count, the company's database bytes and its thread entry in the same transaction) and starts its
  // delivery. The sender's status reports and inbound messages write messages with their events; a contact's
  // thread is a Query of its thread partition (in the Dynadata items' family) and a batch read of messages.
  contacts: {
    table: {
      GetItem: ['dynadataItems', 'storedObjects', 'idempotency', 'dynadataTypes'],
      Query: ['dynadataItems'],
      BatchGetItem: ['dynadataItems'],
      PutItem: ['dynadataItems', 'idempotency', 'events', 'dynadataTypes'],
      UpdateItem: ['dynadataTypes', 'usage', 'idempotency'],
      DeleteItem: ['idempotency'],
      ConditionCheckItem: ['dynadataTypes'],
    },
    stateMachines: { 'message-delivery': ['StartExecution'] },
  },
  // The item and type routes, and functions (send_message starts a delivery).
  // Type definitions (`PUT`/`DELETE /v1/dynadata/types/{type}`): the type record, the company's limits.
  dynadata: combineAccess(DYNADATA_ITEMS, {
    table: {
      GetItem: ['idempotency', 'plans'],
      BatchGetItem: ['company'],
      PutItem: ['idempotency', 'events', 'dynadataTypes'],
      UpdateItem: ['idempotency'],
      DeleteItem: ['idempotency', 'dynadataTypes'],
    },
    stateMachines: { 'message-delivery': ['StartExecution'] },
  }),
  // Upload URLs (signed by the role: PUT), upload completion (HEAD), download URLs (signed by the download
  // signer's key, never by the role), and the deletion of an upload that breaks its declared size or type:
  // all under `uploads/`. Multipart uploads: create, part URLs and completion are `s3:PutObject`; listing the
  // parts and aborting are their own actions, and aborting deletes the reservation.
  // Both steps of an upload honour Idempotency-Key. The file list and deletion (`FILE_LIST`, `FILE_DELETION`).
  storage: combineAccess(FILE_LIST, FILE_DELETION, {
    table: {
      GetItem: ['storedObjects', 'idempotency'],
      PutItem: ['storedObjects', 'idempotency'],
      UpdateItem: ['storedObjects', 'usage', 'idempotency'],
      DeleteItem: ['storedObjects', 'idempotency'],
    },
    objects: {
      's3:GetObject': ['uploads'],
      's3:PutObject': ['uploads'],
      's3:DeleteObject': ['uploads'],
      's3:AbortMultipartUpload': ['uploads'],
      's3:ListMultipartUploadParts': ['uploads'],
    },
    secrets: ['downloadSigner'],
  }),
  transcriptions: {
    table: {
      GetItem: ['transcriptions', 'plans', 'idempotency'],
      // The job list: one Query of the company's own job partition.
      Query: ['transcriptions'],
      BatchGetItem: ['company', 'usage', 'storedObjects'],
      PutItem: ['transcriptions', 'idempotency', 'events'],
      UpdateItem: ['transcriptions', 'usage', 'idempotency'],
      DeleteItem: ['idempotency'],
    },
    stateMachines: { transcription: ['StartExecution'] },
  },
  // Creating, canceling and retrying a job honour Idempotency-Key.
  transcodes: {
    table: {
      GetItem: ['transcodes', 'plans', 'idempotency'],
      // The job list: one Query of the company's own job partition.
      Query: ['transcodes'],
      BatchGetItem: ['company', 'usage', 'storedObjects', 'transcodes'],
      PutItem: ['transcodes', 'events', 'idempotency'],
      UpdateItem: ['transcodes', 'usage', 'idempotency'],
      DeleteItem: ['idempotency'],
    },
    // Audio-only presets start on the Express machine, which cannot be stopped (decision 0046).
    stateMachines: { transcode: ['StartExecution', 'StopExecution'], 'transcode-audio': ['StartExecution'] },
  },
  // Synchronous speech, and long-form speech jobs: enqueue (company, month and reuse entry in one batch, the
  // job's text beside it, the job and its queue slot, its execution), read, list, cancel (StopExecution).
  speech: {
    table: {
      GetItem: ['plans', 'idempotency', 'speechJobs'],
      BatchGetItem: ['company', 'usage', 'speechJobs'],
      Query: ['speechJobs'],
      PutItem: ['idempotency', 'speechJobs'],
      UpdateItem: ['storedObjects', 'usage', 'idempotency', 'speechJobs'],
      DeleteItem: ['idempotency'],
    },
    // The audio of a synthesis; a job's text (deleted when the job is canceled, refused, reused or does not
    // start), and a HEAD of an earlier result's files before reusing them.
    objects: {
      's3:GetObject': ['speechJobs'],
      's3:PutObject': ['speech', 'speechJobs'],
      's3:DeleteObject': ['speech', 'speechJobs'],
    },
    stateMachines: { 'speech-job': ['StartExecution', 'StopExecution'] },
    unscoped: [SPEECH_SYNTHESIS],
  },
  // Saves (head, version and the company's workflow count in one transaction), deletes (a tombstone and the
  // count), lists and reads definitions and runs, creates a run (with its `workflow_runs` meter, after the
  // company's limits), runs sync runs in the function (one invocation: step outputs stay in memory) and hands
  // async ones to the engine (`RUN_ENGINE`); cancels a run (its final move, which the engine's next claim sees).
  // POST /v1/workflows/{id}/run is idempotent.
  workflows: combineAccess(
    WORKFLOW_ACTIONS,
    WORKFLOW_RUN,
    JWT_MINTING,
    WORKFLOW_DEFINITIONS,
    WORKFLOW_SECRETS,
    RUN_ENGINE,
    {
      table: {
        GetItem: ['idempotency'],
        // A workflow's run list (`data/workflow-runs/entries.ts`).
        Query: ['workflowRuns'],
        PutItem: ['workflowRuns', 'idempotency'],
        UpdateItem: ['usage', 'idempotency'],
        DeleteItem: ['idempotency'],
      },
    },
  ),
  // Webhook endpoints (registered within the plan's cap, listed, read, changed, their secret rotated,
  // deleted, pinged: a `ping` event), events with their deliveries, an endpoint's delivery log (its keys in
  // `work`, older ones whole in `gsi1`; the deliveries read by key), and a redelivery: the delivery made
  // pending again (one conditional update) and its message sent to its group of the `webhook-delivery` FIFO
  // queue. Registering an endpoint, rotating its secret and redelivering are idempotent.
  // Events and webhook endpoints (their deliveries and log), and the message channel (read, written
  // whole and deleted, each conditional on the channel read).
  events: {
    table: {
      GetItem: ['webhooks', 'events', 'plans', 'idempotency', 'deliveryChannel'],
      BatchGetItem: ['company', 'events'],
      Query: ['webhooks', 'events'],
      PutItem: ['webhooks', 'events', 'idempotency', 'deliveryChannel'],
      UpdateItem: ['webhooks', 'events', 'usage', 'idempotency'],
      DeleteItem: ['webhooks', 'idempotency', 'deliveryChannel'],
    },
    work: ['webhookDeliveryLog'],
    queues: { 'webhook-delivery': ['SendMessage'] },
  },
  // The union of what its tools call (`functions/shared/mcp/tools.ts`): a transcode, transcription, speech
  // job or workflow run read by id, the usage snapshot, the Dynadata item calls, the workflow and run lists,
  // the file list and deletion,
  // and a sync workflow run (as the workflows group runs one: every action and the hand-off to the
  // engine, but no minting: the signing keys stay with the workflows group). POST /v1/mcp refuses
  // `Idempotency-Key`, but each tool that changes data takes an `idempotencyKey` argument: its records.
  mcp: {
    ...combineAccess(
      DYNADATA_ITEMS,
      USAGE_SNAPSHOT,
      WORKFLOW_ACTIONS,
      WORKFLOW_RUN,
      RUN_ENGINE,
      FILE_DELETION,
      {
        table: {
          GetItem: ['transcodes', 'transcriptions', 'speechJobs', 'workflowRuns', 'workflows', 'idempotency'],
          // list_workflow_secrets: the names of the company's workflow secrets.
          Query: ['workflows', 'workflowRuns', 'workflowSecrets'],
          // put_dynadata_type stores the type record.
          PutItem: ['workflowRuns', 'idempotency', 'dynadataTypes'],
          UpdateItem: ['usage', 'idempotency'],
          DeleteItem: ['idempotency'],
        },
      },
    ),
    neverCalls: {
      'kms:GenerateDataKey':
        'runs started through the MCP server mint no token (their JWT step refuses), so nothing is sealed',
    },
  },
});

const UNFINISHED_LIST = 'the unfinished-jobs index is listed by the operator CLI only';

/** Why the ffmpeg function holds the job type's reads and transactions in its bundle but never makes them. */
const AUDIO_PROGRESS_ONLY =
  "the ffmpeg function's only table write is the job's progress (one conditional update); the job type's " +
  'reads and transactions (probe, finalize, fail and their events) are the transcode worker steps';

/**
 * Starting a triggered workflow run (`functions/shared/domain/workflows/triggered-runs.ts`): the workflow's
 * trigger item and head, the company's limits, the run (created with its meter and run list entry; read
 * back when the trigger is handled again), the `workflow_run.finished` event of a run refused by the
 * allowance, and the run's first message to the engine.
 */
const TRIGGERED_RUNS: FunctionAccess = combineAccess(RUN_ENGINE, {
  table: {
    GetItem: ['workflows', 'workflowRuns', 'plans'],
    BatchGetItem: ['company'],
    PutItem: ['workflowRuns', 'events'],
    UpdateItem: ['usage'],
  },
});

/** The functions of the jobs stack. */
export const WORKER_ACCESS = {
  /**
   * The table stream's dispatcher: for each new event, the subscribed endpoints (or the pinged one), one
   * delivery per endpoint (read back when it exists already: a pending one a stopped handling left unsent is
   * sent again) and its message to the `webhook-delivery` FIFO queue; the runs of
   * the workflows the event triggers (their trigger items: a Query of the definitions' partition); for each
   * changed usage month, the company's limits and a once-only threshold event; for each turn of a Dynadata
   * type's background deletion, the type, a page of its items, each item's deletion (with the type's counter
   * item, one transaction), the next turn or the type's record and counter (its bytes into the totals); for
   * each Dynadata item written, its change event (`contacts`: with its count on the type's counter item, one
   * transaction per chunk, the counter created from the type's record when missing).
   */
  eventDispatcher: combineAccess(TRIGGERED_RUNS, {
    table: {
      GetItem: ['webhooks', 'plans', 'dynadataTypes', 'events'],
      BatchGetItem: ['company'],
      Query: ['webhooks', 'workflows', 'dynadataItems'],
      PutItem: ['events', 'dynadataTypes'],
      // An item's delete by a deleting type's sweep is marked `_quiet` first (it raises no change event).
      UpdateItem: ['dynadataItems', 'dynadataTypes', 'usage'],
      DeleteItem: ['dynadataItems', 'dynadataTypes'],
      ConditionCheckItem: ['dynadataTypes'],
    },
    queues: { 'webhook-delivery': ['SendMessage'] },
  }),
  /** The target of workflow schedules: the workflow's trigger item, then the due run (`TRIGGERED_RUNS`). */
  workflowSchedule: TRIGGERED_RUNS,
  /**
   * A delivery's attempt: reads the delivery, the event and the endpoint, records the attempt (a retry or the
   * final state) and the endpoint's success or failure; keeps a delivery to retry at its group's head by
   * changing its message's visibility (with the group's later messages of the batch). The event source adds
   * the queue's receive actions (which include `ChangeMessageVisibility`).
   */
  webhookDelivery: {
    table: {
      GetItem: ['events', 'webhooks'],
      UpdateItem: ['events', 'webhooks'],
    },
    queues: { 'webhook-delivery': ['ChangeMessageVisibility'] },
  },
  /**
   * Reads the message, its contact and the channel; moves the message's status (and its bytes on the type's
   * counter item, created from the type's record when missing); signs
   * the download URL of a file message with the download signer's key (the URL is authorized by that key).
   */
  messageDelivery: {
    table: {
      GetItem: ['dynadataItems', 'deliveryChannel', 'dynadataTypes'],
      PutItem: ['dynadataItems', 'events', 'dynadataTypes'],
      UpdateItem: ['dynadataTypes'],
      ConditionCheckItem: ['dynadataTypes'],
    },
    secrets: ['downloadSigner'],
    neverCalls: {
      's3:GetObject':
        "the worker only presigns download URLs with the download signer's key; the file is read by the " +
        "URL's holder, authorized by that key, never by this role",
    },
  },
  /**
   * Lists the messages still `queued` (the sparse `work` partition of undelivered messages, then the messages
   * by key) and starts the delivery of each that has been quiet longer than a delivery can run; releases scheduled messages (the
   * target of their schedules, and those past their time in the partition of scheduled messages):
   * `scheduled → queued` (the message and its bytes on the type's counter item in one transaction), then the
   * delivery.
   */
  messageSweep: {
    work: ['undeliveredMessages', 'scheduledMessages'],
    table: {
      GetItem: ['dynadataItems', 'dynadataTypes'],
      BatchGetItem: ['dynadataItems'],
      PutItem: ['dynadataItems', 'dynadataTypes'],
      UpdateItem: ['dynadataTypes'],
      ConditionCheckItem: ['dynadataTypes'],
    },
    stateMachines: { 'message-delivery': ['StartExecution'] },
  },
  /** Secrets Manager rotation of the download signer's key set (`functions/workers/download-signer-rotation`). */
  downloadSignerRotation: { rotatesDownloadSigner: true },
  /**
   * Probe, finalize (records the output and its bytes, the reuse entry, the meter), fail, progress. Reads
   * (HEAD, MediaConvert's Probe) the source, which may be any stored object of the company, and the output
   * under `transcodes/`; MediaConvert writes the output with its own role.
   */
  transcode: {
    table: {
      GetItem: ['transcodes', 'plans'],
      BatchGetItem: ['company'],
      PutItem: ['transcodes', 'events'],
      UpdateItem: ['transcodes', 'storedObjects', 'usage'],
    },
    objects: { 's3:GetObject': STORED_OBJECT_PREFIXES },
    unscoped: [MEDIA_PROBE],
    neverCalls: { 'dynamodb:Query': UNFINISHED_LIST },
  },
  /**
   * The ffmpeg function (audio-only presets): reads the source (any stored object of the company), writes the
   * output under `transcodes/`, and records the conversion's progress on the job (a conditional update).
   */
  transcodeAudio: {
    table: { UpdateItem: ['transcodes'] },
    objects: { 's3:GetObject': STORED_OBJECT_PREFIXES, 's3:PutObject': ['transcodes'] },
    neverCalls: {
      'dynamodb:GetItem': AUDIO_PROGRESS_ONLY,
      'dynamodb:PutItem': AUDIO_PROGRESS_ONLY,
      'dynamodb:Query': UNFINISHED_LIST,
      'dynamodb:BatchGetItem': UNFINISHED_LIST,
    },
  },
  /**
   * Probe, finalize (reads Transcribe's output, writes the transcript), fail. Reads the source (any stored
   * object of the company); reads, writes and deletes only under `transcriptions/`.
   */
  transcription: {
    table: {
      GetItem: ['transcriptions', 'plans'],
      BatchGetItem: ['company'],
      PutItem: ['transcriptions', 'events'],
      UpdateItem: ['transcriptions', 'storedObjects', 'usage'],
    },
    objects: {
      's3:GetObject': STORED_OBJECT_PREFIXES,
      's3:PutObject': ['transcriptions'],
      's3:DeleteObject': ['transcriptions'],
    },
    unscoped: [MEDIA_PROBE],
    neverCalls: { 'dynamodb:Query': UNFINISHED_LIST },
  },
  /**
   * Prepare (lease, reuse entry and its files, the text), finalize (reads Polly's audio and marks, writes the
   * timing file and a WAV's header, records both files, the done transaction with meter and reuse entry,
   * deletes the intermediate files), fail. Reads, writes and deletes only under `speech-jobs/`.
   */
  speechJob: {
    table: {
      GetItem: ['speechJobs'],
      PutItem: ['speechJobs', 'events'],
      UpdateItem: ['speechJobs', 'storedObjects', 'usage'],
    },
    objects: {
      's3:GetObject': ['speechJobs'],
      's3:PutObject': ['speechJobs'],
      's3:DeleteObject': ['speechJobs'],
    },
    neverCalls: {
      'dynamodb:Query': UNFINISHED_LIST,
      'dynamodb:BatchGetItem': 'the unfinished jobs the operator CLI lists are read by key there, never here',
    },
  },
} satisfies Record<string, FunctionAccess>;
