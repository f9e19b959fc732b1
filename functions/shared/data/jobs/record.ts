import * as zm from '../../zod-mini';
import { workError } from '../schemas';

/**
 * What every job type stores and how a worker names one attempt of a job, shared by the job lifecycle
 * (`lifecycle.ts`) and the job types' own schemas.
 */
export interface JobRecordBase<S extends string = string> {
  jobId: string;
  companyId: string;
  status: S;
  attempt: number;
  reused: boolean;
  billedSeconds: number;
  progress?: { phase: S; percent?: number };
  error?: { code: string; message: string };
  leaseUntil?: string;
  executionArn?: string;
  createdAt: string;
  updatedAt: string;
  attemptStartedAt: string;
  finishedAt?: string;
}

/** The attributes every job type stores, for a type's statuses (its schema adds its own). */
export const jobRecordFields = <S extends string>(statuses: readonly [S, ...S[]]) => ({
  jobId: zm.string(),
  companyId: zm.string(),
  status: zm.enum(statuses),
  attempt: zm.number(),
  reused: zm.boolean(),
  billedSeconds: zm.number(),
  progress: zm.optional(zm.object({ phase: zm.enum(statuses), percent: zm.optional(zm.number()) })),
  error: zm.optional(workError()),
  leaseUntil: zm.optional(zm.string()),
  executionArn: zm.optional(zm.string()),
  createdAt: zm.string(),
  updatedAt: zm.string(),
  attemptStartedAt: zm.string(),
  finishedAt: zm.optional(zm.string()),
});

/** One attempt of a job: what a worker step knows, and what every transition is conditional on. */
export interface JobRef {
  companyId: string;
  jobId: string;
  attempt: number;
}

/** What every reuse entry (the stored result of an earlier finished job of the same request) records. */
export interface ReuseEntryBase {
  sourceJobId: string;
  durationSeconds: number;
  createdAt: string;
}

/** The attributes every reuse entry stores (a type's schema adds its result). */
export const reuseEntryFields = () => ({
  sourceJobId: zm.string(),
  durationSeconds: zm.number(),
  createdAt: zm.string(),
});
