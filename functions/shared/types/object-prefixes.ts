/**
 * The one catalogue of object prefixes of the platform bucket. Every object the code writes lives under
 * `companies/<companyId>/` and then one of these prefixes; the path builders of storage, speech, the
 * transcode and transcription workers and workflow runs take theirs from here, and so do the IAM grants
 * (`lib/grants/object-prefixes.ts`), which name each function's prefixes instead of the whole bucket.
 * `test/infra/object-prefixes.test.ts` checks every builder's path against the grant of its prefix.
 * A prefix is part of stored paths: renaming one strands the objects already under it.
 */
export const TENANT_OBJECT_ROOT = 'companies/';

export const OBJECT_PREFIXES = {
  /** `uploads/<ulid>/<file name>`: client uploads (presigned PUT, then completed). */
  uploads: 'uploads/',
  /** `transcodes/<jobId>/a<attempt>/output.<ext>`: transcode outputs (MediaConvert writes them). */
  transcodes: 'transcodes/',
  /** `transcriptions/<jobId>/a<attempt>/<file>`: transcripts and the engine's intermediate JSON. */
  transcriptions: 'transcriptions/',
  /** `speech/<ulid>.<ext>`: synthesized speech. */
  speech: 'speech/',
  /** `speech-jobs/<jobId>/input.txt`, `speech-jobs/<jobId>/a<attempt>/<file>`: long-form speech jobs. */
  speechJobs: 'speech-jobs/',
  /** `workflows/runs/<runId>/steps/<stepId>.json`: workflow step outputs over the inline limit. */
  workflowRuns: 'workflows/runs/',
} as const;

export type ObjectPrefix = keyof typeof OBJECT_PREFIXES;

/**
 * Every prefix holds stored objects of the company (each is recorded when written), and any stored object may
 * be downloaded or named as a transcode or transcription source: what a reader of sources needs.
 */
export const STORED_OBJECT_PREFIXES: readonly ObjectPrefix[] = [
  'uploads',
  'transcodes',
  'transcriptions',
  'speech',
  'speechJobs',
  'workflowRuns',
];

/** `companies/<companyId>/`: the root of one company's objects. */
export const companyObjectRoot = (companyId: string): string => `${TENANT_OBJECT_ROOT}${companyId}/`;

/** `companies/<companyId>/<prefix>`: where one kind of the company's objects is written. */
export const companyObjectPrefix = (companyId: string, prefix: ObjectPrefix): string =>
  `${companyObjectRoot(companyId)}${OBJECT_PREFIXES[prefix]}`;

/** The company whose root `fullPath` lies under (`companies/<companyId>/…`), or undefined for another path. */
export const companyOfObjectPath = (fullPath: string): string | undefined => {
  if (!fullPath.startsWith(TENANT_OBJECT_ROOT)) return undefined;
  const end = fullPath.indexOf('/', TENANT_OBJECT_ROOT.length);
  return end > TENANT_OBJECT_ROOT.length ? fullPath.slice(TENANT_OBJECT_ROOT.length, end) : undefined;
};
