import type { RouteGroup } from '../functions/shared/routes/route-table';
import { STORED_OBJECT_PREFIXES } from '../functions/shared/types/object-prefixes';
import { combineAccess } from './grants/combine';
import type { FunctionAccess } from './grants/function-access';

export {
  type DataResources,
  dataEnvironment,
  type FunctionAccess,
  grantDataAccess,
  TENANT_OBJECT_PREFIX,
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

/** The API-request meter every authenticated request adds to (`functions/shared/http/middleware.ts`). */
const METER = { UpdateItem: ['usage'] } as const;

/**
 * Reads an API key by its hash, the company and its plan; verifies JWTs with the public verification keys
 * only (`jwtPublicKeys`): the authorizer can verify tokens, never sign one. Reads the revocations of a
 * token's id and root credential in one batch.
 */
export const AUTHORIZER_ACCESS: FunctionAccess = {
  table: { GetItem: ['apiKeys', 'company', 'plans'], BatchGetItem: ['credentials'] },
  secrets: ['jwtPublicKeys'],
};

/** Writes `log_entries` (batches) and adds compute time to the month meter; reads the company and plan. */
export const LOG_SHIPPER_ACCESS: FunctionAccess = {
  table: { GetItem: ['company', 'plans'], BatchWriteItem: ['logEntries'], UpdateItem: ['usage'] },
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
 * delete, the type list): items and their index, the `log_entries` partition, type records and counts, the
 * company's database bytes, and the stored-object records file fields name.
 */
const DYNADATA_ITEMS: FunctionAccess = {
  table: {
    GetItem: ['dynadataItems', 'logEntries', 'dynadataTypes', 'storedObjects'],
    Query: ['dynadataItems', 'logEntries', 'dynadataTypes'],
    PutItem: ['dynadataItems'],
    UpdateItem: ['dynadataTypes', 'usage'],
    DeleteItem: ['dynadataItems'],
    ConditionCheckItem: ['dynadataTypes'],
  },
  gsi1: ['dynadataIndex'],
  secrets: ['cursorKey'],
};

/** The usage snapshot (`getUsageSnapshot`): company, month figures, totals and plan in one batch; the plan. */
const USAGE_SNAPSHOT: FunctionAccess = {
  table: { GetItem: ['plans'], BatchGetItem: ['company', 'usage', 'plans'] },
};

/**
 * What the actions of a workflow step call (`functions/shared/domain/workflows/actions`): the same domain
 * functions as their routes, without the routes' idempotency and request meter. Enqueueing a transcode or a
 * transcription (company, month and source in one batch, the plan, the job and its queue slot, its
 * execution), speech (the company and month, Polly, the audio object and its billed record), a message to a
 * contact (the contact, the attachment's record, the message with its type's count and database bytes, its
 * delivery), the Dynadata item and list calls. `actions/http/request` and `actions/speech/spoken-text` make no
 * AWS call. Minting a JWT (`actions/security/auth/jwt/generate`) reads the signing keys: only the workflows
 * group, which runs sync runs, holds them (`JWT_MINTING`); the async step worker mints no token.
 */
const WORKFLOW_ACTIONS: FunctionAccess = combineAccess(DYNADATA_ITEMS, {
  table: {
    GetItem: ['plans', 'dynadataItems', 'storedObjects'],
    BatchGetItem: ['company', 'usage', 'storedObjects'],
    PutItem: ['transcodes', 'transcriptions', 'dynadataItems', 'events'],
    UpdateItem: ['transcodes', 'transcriptions', 'storedObjects', 'dynadataTypes', 'usage'],
  },
  // Speech writes its audio (and deletes it when the billing write refuses); enqueueing reads no object.
  objects: { 's3:PutObject': ['speech'], 's3:DeleteObject': ['speech'] },
  stateMachines: {
    transcode: ['StartExecution'],
    transcription: ['StartExecution'],
    'message-delivery': ['StartExecution'],
  },
  unscoped: [SPEECH_SYNTHESIS],
});

/**
 * Minting a token (`functions/shared/domain/tokens.ts`, the JWT action of sync runs): the signing keys
 * (private), and the record of the token (its id, root and expiry; never the token) in the credentials
 * partition. Only the workflows group mints; the async step worker refuses to (`jwt_requires_sync_run`).
 */
const JWT_MINTING: FunctionAccess = { table: { PutItem: ['credentials'] }, secrets: ['jwtKeys'] };

/**
 * What a workflow run calls around its steps, sync or async (`functions/shared/domain/workflows`): reads the
 * definition version, the run and the company's limits, records each step on the run item, stores an output
 * over 4 KB as a tenant object (`companies/<id>/workflows/runs/...`: the object, its record and storage
 * bytes), and finishes the run with its compute time in one transaction.
 */
const WORKFLOW_RUN: FunctionAccess = {
  table: {
    GetItem: ['workflows', 'workflowRuns', 'storedObjects', 'plans'],
    PutItem: ['events'],
    BatchGetItem: ['company'],
    // The run and its entry in its workflow's run list (`data/workflow-run-entries.ts`).
    UpdateItem: ['workflowRuns', 'storedObjects', 'usage'],
  },
  objects: { 's3:PutObject': ['workflowRuns'] },
};

/**
 * Saving and deleting definitions (`functions/shared/data/workflows.ts`): the head, its versions and the
 * company's workflow count in the `workflows` partition (heads listed to start a count), conditional writes in
 * one transaction.
 */
const WORKFLOW_DEFINITIONS: FunctionAccess = {
  table: { GetItem: ['workflows'], Query: ['workflows'], PutItem: ['workflows'], UpdateItem: ['workflows'] },
};

/**
 * The step worker of async runs (`functions/workers/workflow-run`): a run and every action, and it reads the
 * outputs earlier steps stored as objects back (`s3:GetObject`), since each step is its own invocation.
 */
export const WORKFLOW_STEP_ACCESS: FunctionAccess = combineAccess(WORKFLOW_ACTIONS, WORKFLOW_RUN, {
  objects: { 's3:GetObject': ['workflowRuns'] },
});

export const GROUP_ACCESS: Record<RouteGroup, FunctionAccess> = {
  // The plan catalogue, without a credential: public routes are never metered and none is idempotent.
  public: {
    table: { Query: ['plans'] },
    neverCalls: {
      'dynamodb:GetItem': NO_IDEMPOTENT_ROUTE,
      'dynamodb:PutItem': NO_IDEMPOTENT_ROUTE,
      'dynamodb:UpdateItem': `${NO_IDEMPOTENT_ROUTE}; public routes carry no company and are not metered`,
      'dynamodb:DeleteItem': NO_IDEMPOTENT_ROUTE,
    },
  },
  company: {
    table: { GetItem: ['company'], ...METER },
    neverCalls: { 'dynamodb:PutItem': NO_IDEMPOTENT_ROUTE, 'dynamodb:DeleteItem': NO_IDEMPOTENT_ROUTE },
  },
  usage: {
    ...combineAccess(USAGE_SNAPSHOT, { table: METER }),
    neverCalls: { 'dynamodb:PutItem': NO_IDEMPOTENT_ROUTE, 'dynamodb:DeleteItem': NO_IDEMPOTENT_ROUTE },
  },
  // send_message: reads the contact (and the attachment's object record), inserts the message (its type's
  // item count and the company's database bytes in the same transaction) and starts its delivery.
  contacts: {
    table: {
      GetItem: ['dynadataItems', 'storedObjects', 'idempotency'],
      PutItem: ['dynadataItems', 'idempotency', 'events'],
      UpdateItem: ['dynadataTypes', 'usage', 'idempotency'],
      DeleteItem: ['idempotency'],
    },
    stateMachines: { 'message-delivery': ['StartExecution'] },
    neverCalls: {
      'dynamodb:ConditionCheckItem':
        'messages are a built-in type: their writes carry no custom type version to check',
    },
  },
  // The item and type routes, and functions (send_message starts a delivery).
  dynadata: combineAccess(DYNADATA_ITEMS, {
    table: {
      GetItem: ['idempotency'],
      PutItem: ['idempotency', 'events'],
      UpdateItem: ['idempotency'],
      DeleteItem: ['idempotency'],
    },
    stateMachines: { 'message-delivery': ['StartExecution'] },
  }),
  // Upload URLs (signed by the role: PUT), upload completion (HEAD), download URLs (signed by the download
  // signer's key, never by the role), and the deletion of an upload that breaks its declared size or type:
  // all under `uploads/`.
  // Both steps of an upload honour Idempotency-Key.
  storage: {
    table: {
      GetItem: ['storedObjects', 'idempotency'],
      PutItem: ['storedObjects', 'idempotency'],
      UpdateItem: ['storedObjects', 'usage', 'idempotency'],
      DeleteItem: ['idempotency'],
    },
    objects: { 's3:GetObject': ['uploads'], 's3:PutObject': ['uploads'], 's3:DeleteObject': ['uploads'] },
    secrets: ['downloadSigner'],
  },
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
    stateMachines: { transcode: ['StartExecution', 'StopExecution'] },
  },
  speech: {
    table: {
      GetItem: ['plans', 'idempotency'],
      BatchGetItem: ['company', 'usage'],
      PutItem: ['idempotency'],
      UpdateItem: ['storedObjects', 'usage', 'idempotency'],
      DeleteItem: ['idempotency'],
    },
    objects: { 's3:PutObject': ['speech'], 's3:DeleteObject': ['speech'] },
    unscoped: [SPEECH_SYNTHESIS],
  },
  // Saves (head, version and the company's workflow count in one transaction), deletes (a tombstone and the
  // count), lists and reads definitions and runs, creates a run (with its `workflow_runs` meter, after the
  // company's limits), runs sync runs in the function (one invocation: step outputs stay in memory) and hands
  // async ones to `workflow-run`; cancels a run (its final move, and stopping its execution).
  // POST /v1/workflows/{id}/run is idempotent.
  workflows: combineAccess(WORKFLOW_ACTIONS, WORKFLOW_RUN, JWT_MINTING, WORKFLOW_DEFINITIONS, {
    table: {
      GetItem: ['idempotency'],
      // A workflow's run list (`data/workflow-run-entries.ts`).
      Query: ['workflowRuns'],
      PutItem: ['workflowRuns', 'idempotency'],
      UpdateItem: ['usage', 'idempotency'],
      DeleteItem: ['idempotency'],
    },
    stateMachines: { 'workflow-run': ['StartExecution', 'StopExecution'] },
  }),
  // Webhook endpoints (registered within the plan's cap, listed, read, deleted, pinged: a `ping` event), and
  // events with their deliveries. Registering an endpoint is idempotent.
  events: {
    table: {
      GetItem: ['webhooks', 'events', 'plans', 'idempotency'],
      BatchGetItem: ['company'],
      Query: ['webhooks', 'events'],
      PutItem: ['webhooks', 'events', 'idempotency'],
      UpdateItem: ['webhooks', 'usage', 'idempotency'],
      DeleteItem: ['webhooks', 'idempotency'],
    },
  },
  // The union of what its tools call (`functions/shared/mcp/tools.ts`): a transcode, transcription or
  // workflow run read by id, the usage snapshot, the Dynadata item calls, the workflow and run lists, and a
  // sync workflow run (as the workflows group runs one: every action and the hand-off to `workflow-run`, but
  // no minting: the signing keys stay with the workflows group). POST /v1/mcp is not idempotent.
  mcp: {
    ...combineAccess(DYNADATA_ITEMS, USAGE_SNAPSHOT, WORKFLOW_ACTIONS, WORKFLOW_RUN, {
      table: {
        GetItem: ['transcodes', 'transcriptions', 'workflowRuns', 'workflows'],
        Query: ['workflows', 'workflowRuns'],
        PutItem: ['workflowRuns'],
        ...METER,
      },
      stateMachines: { 'workflow-run': ['StartExecution'] },
    }),
  },
};

const UNFINISHED_LIST = 'the unfinished-jobs index is listed by the operator CLI only';

/** The functions of the jobs stack. */
export const WORKER_ACCESS = {
  /**
   * The table stream's dispatcher: for each new event, the subscribed endpoints (or the pinged one), one
   * delivery per endpoint with its lane entry and count, and the lane's `webhook-delivery` execution; for
   * each changed usage month, the company's limits and a once-only threshold event.
   */
  eventDispatcher: {
    table: {
      GetItem: ['webhooks', 'plans'],
      BatchGetItem: ['company'],
      Query: ['webhooks'],
      PutItem: ['events', 'webhookLanes'],
      UpdateItem: ['webhookLanes'],
    },
    stateMachines: { 'webhook-delivery': ['StartExecution'] },
  },
  /**
   * A lane's delivery steps: claims, renews and releases the lane, reads its next entry, the event, the
   * delivery and the endpoint, records the attempt (retry or final state, dropping the entry) and the
   * endpoint's success or failure.
   */
  webhookDelivery: {
    table: {
      GetItem: ['events', 'webhooks'],
      Query: ['webhookLanes'],
      UpdateItem: ['events', 'webhookLanes', 'webhooks'],
      DeleteItem: ['webhookLanes'],
    },
  },
  /** Reads the message, its contact and the channel; moves the message's status (and database bytes). */
  messageDelivery: {
    table: {
      GetItem: ['dynadataItems', 'deliveryChannel'],
      PutItem: ['dynadataItems', 'events'],
      UpdateItem: ['usage'],
    },
    neverCalls: {
      'dynamodb:ConditionCheckItem':
        'messages are a built-in type: their writes carry no custom type version to check',
    },
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
} satisfies Record<string, FunctionAccess>;
