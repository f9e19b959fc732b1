/**
 * A plan of the public catalog and its limits. The data, domain and HTTP layers share these shapes; the zod
 * schemas of the routes (`routes/schemas.ts`) describe the same shapes for validation and the OpenAPI document,
 * and a compile-time check there keeps the two equal.
 */
export interface PlanLimits {
  apiRequestsPerMonth: number;
  /** Steady request rate per company (token-bucket refill per second), enforced at the edge. */
  requestsPerSecond: number;
  /** Requests a company may send at once above the steady rate (token-bucket capacity). */
  burst: number;
  storageBytes: number;
  maxObjectBytes: number;
  databaseBytes: number;
  transcodeSecondsPerMonth: number;
  transcodeQueueCap: number;
  transcodeMaxSourceBytes: number;
  transcodeMaxDurationSeconds: number;
  transcriptionSecondsPerMonth: number;
  transcriptionQueueCap: number;
  transcriptionMaxSourceBytes: number;
  transcriptionMaxDurationSeconds: number;
  speechCharactersPerMonth: number;
  /** Unfinished long-form speech jobs allowed at once. */
  speechJobQueueCap: number;
  workflowRunsPerMonth: number;
  /** Total step time one workflow run may use, in milliseconds; past it the run fails. */
  workflowRunComputeMs: number;
  /** Items one `forEach` step of a workflow may loop over; past it the step fails. */
  workflowForEachItems: number;
  logRetentionDays: number;
  webhookEndpoints: number;
  /** Workflow definitions a company may have at once. */
  workflows: number;
  /** Custom Dynadata types a company may have at once. */
  dynadataTypes: number;
  /** Fields (properties at any depth) one Dynadata type schema may declare. */
  dynadataFieldsPerType: number;
}

export interface Plan {
  id: string;
  name: string;
  description: string;
  sellable: boolean;
  price: { amount: number; currency: string; interval: 'month' | 'year' };
  limits: PlanLimits;
}

/**
 * The request rate of a plan stored before plans had one, and of a plan the deployment has no usage plan
 * for: the shipped catalog's smallest.
 */
export const RATE_OF_PLANS_WITHOUT_ONE = { requestsPerSecond: 10, burst: 20 } as const;

/** The tag on each API Gateway usage plan: the id of the plan it throttles (or `default`). */
export const USAGE_PLAN_TAG = 'public-api-v1:plan';
