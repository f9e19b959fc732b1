/**
 * Direction of imports (`npm test` checks it through test/unit/import-direction.test.ts):
 * entries (`api/<group>`, authorizer, workers, log shipper, admin, local) → `shared/operations` (what each
 * operation does, for every door) and `shared/mcp` → `shared/http` + `shared/routes`
 * → `shared/domain` (+ `shared/auth`) → `shared/data`, `shared/aws`; `shared/types`, `shared/observability`
 * (logger, metrics, tracer) and the shared base modules (`shared/*.ts`: errors, env, ids, zod, …) may be
 * imported by all. The key catalogue
 * (`shared/data/keys.ts`) imports nothing, so the CDK code may import it. `shared/pipeline` (the middy chain
 * every function runs) is for entries and the HTTP chain only.
 */
const SHARED = '^functions/shared/';
const layer = (name) => `${SHARED}${name}/`;
const BASE = `${SHARED}[^/]+[.]ts$`;

module.exports = {
  forbidden: [
    {
      name: 'types-import-nothing',
      comment: 'Shared types sit in a place of their own that imports nothing of ours.',
      severity: 'error',
      from: { path: layer('types') },
      to: { path: '^functions/', pathNot: layer('types') },
    },
    {
      name: 'base-imports-base',
      comment:
        'The base modules (errors, env, ids, logger, zod, …) import only other base modules and types.',
      severity: 'error',
      from: { path: BASE },
      to: { path: '^functions/', pathNot: [BASE, layer('types')] },
    },
    {
      name: 'observability-is-base',
      comment:
        'Logger, Metrics and Tracer (`shared/observability`) may be imported by all, so they import only the base ' +
        'modules, the types and each other.',
      severity: 'error',
      from: { path: layer('observability') },
      to: { path: '^functions/', pathNot: [BASE, layer('types'), layer('observability')] },
    },
    {
      name: 'data-not-upward',
      comment: 'Data modules own the table: they never import domain, http, routes, aws or auth.',
      severity: 'error',
      from: { path: layer('data') },
      to: { path: [layer('domain'), layer('http'), layer('routes'), layer('aws'), layer('auth')] },
    },
    {
      name: 'key-catalogue-pure',
      comment:
        'The key catalogue imports nothing: the CDK code derives the IAM partition list from it (lib/grants).',
      severity: 'error',
      from: { path: `${SHARED}data/keys[.]ts$` },
      to: { path: '.' },
    },
    {
      name: 'aws-adapters-alone',
      comment: 'A folder named after AWS holds only the adapters for its services.',
      severity: 'error',
      from: { path: layer('aws') },
      to: { path: [layer('domain'), layer('http'), layer('routes'), layer('data'), layer('auth')] },
    },
    {
      name: 'domain-not-http',
      comment: 'Domain code gets typed values; it never imports the HTTP chain or the route table.',
      severity: 'error',
      from: { path: [layer('domain'), layer('auth')] },
      to: { path: [layer('http'), layer('routes')] },
    },
    {
      name: 'operations-at-the-top',
      comment:
        'What each operation does (`shared/operations`) sits above the HTTP chain, the routes and the domain: ' +
        'the entries, the MCP server and nothing else import it (the workflow engine gets its actions registered).',
      severity: 'error',
      from: { path: SHARED, pathNot: [layer('operations'), layer('mcp')] },
      to: { path: layer('operations') },
    },
    {
      name: 'entries-not-data',
      comment: 'Route groups call domain functions; they never read or write the table themselves.',
      severity: 'error',
      from: { path: '^functions/api/' },
      to: { path: [layer('data'), layer('aws')] },
    },
    {
      name: 'pipeline-for-entries',
      comment:
        'The handler pipeline (middy, Powertools middlewares, batch processing) wraps entries: code below the ' +
        'HTTP chain is called by it and never imports it, so domain and data stay plain functions.',
      severity: 'error',
      from: { path: [layer('domain'), layer('auth'), layer('data'), layer('aws'), layer('routes')] },
      to: { path: layer('pipeline') },
    },
    {
      name: 'shared-not-entries',
      comment: 'Shared code never imports a Lambda entry, the operator CLI or the local stack.',
      severity: 'error',
      from: { path: SHARED },
      to: { path: '^functions/(api|authorizer|workers|log-shipper|admin|local)/' },
    },
    {
      name: 'only-local-knows-local',
      comment: 'functions/local is the only code that knows it is not on AWS.',
      severity: 'error',
      from: { path: '^functions/', pathNot: ['^functions/local/', '^functions/admin/'] },
      to: { path: '^functions/local/' },
    },
    {
      name: 'no-cdk-at-runtime',
      comment: 'Runtime code never imports the CDK.',
      severity: 'error',
      from: { path: '^functions/' },
      to: { path: ['^lib/', 'node_modules/(aws-cdk-lib|constructs)/'] },
    },
    {
      name: 'no-circular',
      comment: 'No import cycles.',
      severity: 'error',
      from: { path: '^functions/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    parser: 'swc',
  },
};
