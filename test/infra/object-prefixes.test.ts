import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  OBJECT_PREFIXES,
  type ObjectPrefix,
  STORED_OBJECT_PREFIXES,
} from '../../functions/shared/types/object-prefixes';
import { SpeechJobs } from '../../lib/constructs/speech-jobs';
import { TranscodeJobs } from '../../lib/constructs/transcode-jobs';
import { TranscriptionJobs } from '../../lib/constructs/transcription-jobs';
import { WorkflowRuns } from '../../lib/constructs/workflow-runs';
import { type ObjectAction, objectPattern } from '../../lib/grants/object-prefixes';
import { stringLikeRegExp } from '../../lib/grants/partitions';
import { logicalIdOf, type SynthesizedApp, synthesizeApp } from './synth';

const PREFIXES = Object.keys(OBJECT_PREFIXES) as ObjectPrefix[];
const OBJECT_ACTIONS: readonly string[] = [
  's3:GetObject',
  's3:PutObject',
  's3:DeleteObject',
  's3:AbortMultipartUpload',
  's3:ListMultipartUploadParts',
  's3:*',
];

/** One path of each prefix, built by the runtime code that writes it. */
let paths: Record<ObjectPrefix, string[]>;
let synth: SynthesizedApp;

beforeAll(async () => {
  // The runtime modules read their configuration on import.
  vi.stubEnv('TABLE_NAME', 'infra-test-table');
  vi.stubEnv('BUCKET_NAME', 'infra-test-bucket');
  vi.stubEnv('AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED', 'true');
  const { newCompanyId } = await import('../../functions/shared/ids');
  const { uploadPath } = await import('../../functions/shared/domain/storage');
  const { speechPath } = await import('../../functions/shared/domain/speech');
  const { speechJobTextPath } = await import('../../functions/shared/domain/speech-jobs');
  const { outputPath } = await import('../../functions/workers/transcode/probe');
  const { jobFolder } = await import('../../functions/shared/domain/jobs/output-files');
  const { stepOutputPath } = await import('../../functions/shared/domain/workflows/run-state');
  vi.unstubAllEnvs();
  const co = newCompanyId();
  const now = new Date('2026-11-05T10:00:00Z');
  const transcription = `${jobFolder('transcriptions', { companyId: co, jobId: 'tr_1', attempt: 2 })}`;
  paths = {
    uploads: [uploadPath(co, '../Greeting Ä.wav', now)],
    transcodes: [outputPath({ companyId: co, jobId: 'tc_1', attempt: 1, preset: 'ogg_opus' })],
    transcriptions: [`${transcription}engine.json`, `${transcription}transcript.vtt`],
    speech: [speechPath(co, 'mp3', now)],
    speechJobs: [
      speechJobTextPath({ companyId: co, jobId: 'sj_1' }),
      `${jobFolder('speechJobs', { companyId: co, jobId: 'sj_1', attempt: 1 })}timings.json`,
    ],
    workflowRuns: [stepOutputPath({ companyId: co, runId: 'wr_1' }, 'fetch')],
  };
  synth = synthesizeApp({ bundling: false });
});
afterAll(() => synth?.cleanup());

describe('object prefix catalogue', () => {
  it.each(PREFIXES)('matches the paths the code builds under %s, and no other prefix', (prefix) => {
    for (const path of paths[prefix]) {
      expect(path).toMatch(/^companies\/co_[0-9A-Za-z]{26}\//);
      for (const other of PREFIXES) {
        expect(stringLikeRegExp(objectPattern(other)).test(path), `${path} ~ ${other}`).toBe(
          other === prefix,
        );
      }
    }
  });

  it('lists every prefix as one of stored objects (each is recorded, so downloadable and a valid source)', () => {
    expect([...STORED_OBJECT_PREFIXES].sort()).toEqual([...PREFIXES].sort());
  });
});

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}
type Resource = { Type: string; Properties: Record<string, unknown> };

const templates = (): Template[] => [
  synth.dataTemplate,
  synth.apiTemplate,
  Template.fromStack(synth.jobs),
  Template.fromStack(synth.observability),
];
const actionsOf = (s: Statement): string[] => (Array.isArray(s.Action) ? s.Action : [s.Action]);
const resourcesOf = (s: Statement): unknown[] => (Array.isArray(s.Resource) ? s.Resource : [s.Resource]);

/** The prefix an object ARN names (`<bucket ARN>/companies/*\/<prefix>*`), or the raw suffix when none. */
const prefixOf = (resource: unknown): ObjectPrefix | string => {
  const join = (resource as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  const suffix = join?.[1].at(-1);
  if (typeof suffix !== 'string') return JSON.stringify(resource);
  return PREFIXES.find((p) => suffix === `/${objectPattern(p)}`) ?? suffix;
};

/** Every object statement of every IAM policy of the app, with the principal it is attached to. */
const objectStatements = () =>
  templates().flatMap((template) =>
    Object.values(template.findResources('AWS::IAM::Policy') as Record<string, Resource>).flatMap((policy) =>
      (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement.filter((s) =>
        actionsOf(s).some((a) => OBJECT_ACTIONS.includes(a)),
      ).map((statement) => ({
        principals: JSON.stringify([policy.Properties.Roles, policy.Properties.Users]),
        statement,
      })),
    ),
  );

/** The object grants of one role or user: each action, with the prefixes it names. */
const objectGrantsOf = (principal: IConstruct): Partial<Record<ObjectAction, string[]>> => {
  const id = JSON.stringify({ Ref: logicalIdOf(principal) });
  const grants: Partial<Record<ObjectAction, string[]>> = {};
  for (const { principals, statement } of objectStatements()) {
    if (!principals.includes(id)) continue;
    for (const action of actionsOf(statement) as ObjectAction[]) {
      grants[action] = [...(grants[action] ?? []), ...resourcesOf(statement).map(prefixOf)].sort();
    }
  }
  return grants;
};

const roleOf = (fn: { role?: IConstruct }): IConstruct => {
  if (!fn.role) throw new Error('function without a role');
  return fn.role;
};
const ALL_STORED = [...STORED_OBJECT_PREFIXES].sort();

describe('object grants', () => {
  it('names a catalogued prefix in every S3 object grant of the app: never the bucket or companies/*', () => {
    const statements = objectStatements();
    expect(statements.length).toBeGreaterThan(5);
    for (const { principals, statement } of statements) {
      expect(actionsOf(statement), principals).not.toContain('s3:*');
      for (const resource of resourcesOf(statement)) {
        expect(PREFIXES, `${principals}: ${JSON.stringify(resource)}`).toContain(prefixOf(resource));
      }
    }
  });

  it('gives each function, service role and the download signer exactly the prefixes its code touches', () => {
    const { api, jobs, data } = synth;
    const only = <T>(type: abstract new (...args: never[]) => T): T => {
      const found = jobs.node.findAll().filter((c): c is T & IConstruct => c instanceof type);
      expect(found).toHaveLength(1);
      return found[0] as T;
    };
    const runs = only(WorkflowRuns);
    const transcodes = only(TranscodeJobs);
    const transcriptions = only(TranscriptionJobs);
    const speechJobs = only(SpeechJobs);
    const expected: [string, IConstruct, Partial<Record<ObjectAction, string[]>>][] = [
      [
        'storage',
        roleOf(api.groups.storage.function),
        // Deleting a file (`DELETE /v1/storage/files`) reaches any stored object of the company; listing
        // the parts of a multipart upload and aborting it, only uploads.
        {
          's3:GetObject': ['uploads'],
          's3:PutObject': ['uploads'],
          's3:DeleteObject': ALL_STORED,
          's3:AbortMultipartUpload': ['uploads'],
          's3:ListMultipartUploadParts': ['uploads'],
        },
      ],
      [
        'speech',
        roleOf(api.groups.speech.function),
        {
          's3:GetObject': ['speechJobs'],
          's3:PutObject': ['speech', 'speechJobs'],
          's3:DeleteObject': ['speech', 'speechJobs'],
        },
      ],
      [
        'workflows',
        roleOf(api.groups.workflows.function),
        {
          's3:GetObject': ['speechJobs'],
          's3:PutObject': ['speech', 'speechJobs', 'workflowRuns'],
          's3:DeleteObject': ['speech', 'speechJobs'],
        },
      ],
      [
        'mcp (run_workflow, delete_file)',
        roleOf(api.groups.mcp.function),
        {
          's3:GetObject': ['speechJobs'],
          's3:PutObject': ['speech', 'speechJobs', 'workflowRuns'],
          's3:DeleteObject': ALL_STORED,
        },
      ],
      ['authorizer', roleOf(api.authorizerFunction), {}],
      [
        'workflow step worker',
        roleOf(runs.worker),
        {
          's3:GetObject': ['speechJobs', 'workflowRuns'],
          's3:PutObject': ['speech', 'speechJobs', 'workflowRuns'],
          's3:DeleteObject': ['speech', 'speechJobs'],
        },
      ],
      ['transcode worker', roleOf(transcodes.worker), { 's3:GetObject': ALL_STORED }],
      [
        'MediaConvert',
        transcodes.mediaConvertRole,
        { 's3:GetObject': ALL_STORED, 's3:PutObject': ['transcodes'] },
      ],
      [
        'transcription worker',
        roleOf(transcriptions.worker),
        {
          's3:GetObject': ALL_STORED,
          's3:PutObject': ['transcriptions'],
          's3:DeleteObject': ['transcriptions'],
        },
      ],
      [
        'transcription machine (Transcribe as the caller)',
        transcriptions.stateMachine.role,
        { 's3:GetObject': ALL_STORED, 's3:PutObject': ['transcriptions'] },
      ],
      [
        'speech job worker',
        roleOf(speechJobs.worker),
        {
          's3:GetObject': ['speechJobs'],
          's3:PutObject': ['speechJobs'],
          's3:DeleteObject': ['speechJobs'],
        },
      ],
      [
        'speech job machine (Polly as the caller)',
        speechJobs.stateMachine.role,
        { 's3:PutObject': ['speechJobs'] },
      ],
      ['download signer', data.downloadSigner.user, { 's3:GetObject': ALL_STORED }],
    ];
    for (const [name, principal, grants] of expected) {
      expect(objectGrantsOf(principal), name).toEqual(grants);
    }
    for (const group of [
      'public',
      'company',
      'usage',
      'contacts',
      'dynadata',
      'transcodes',
      'transcriptions',
      'events',
    ] as const) {
      expect(objectGrantsOf(roleOf(api.groups[group].function)), group).toEqual({});
    }
  });
});
