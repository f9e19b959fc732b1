/**
 * A plan of the public catalog and its limits. The data, domain and HTTP layers share these shapes; the zod
 * schemas of the routes (`routes/schemas.ts`) describe the same shapes for validation and the OpenAPI document,
 * and a compile-time check there keeps the two equal.
 */
export interface PlanLimits {
  apiRequestsPerMonth: number;
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
  workflowRunsPerMonth: number;
  logRetentionDays: number;
  webhookEndpoints: number;
}

export interface Plan {
  id: string;
  name: string;
  description: string;
  sellable: boolean;
  price: { amount: number; currency: string; interval: 'month' | 'year' };
  limits: PlanLimits;
}
