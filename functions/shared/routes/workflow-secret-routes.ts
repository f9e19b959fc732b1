import { MAX_LIST_PAGE } from '../domain/pages';
import { timestampField } from '../fields';
import { lazy } from '../lazy';
import { SECRET_NAME_PATTERN } from '../types/workflows';
import * as z from '../zod';
import { route } from './route-definition';
import { deletedAnswer, nextCursorSchema, pageQuery } from './schemas';

/**
 * The routes of workflow secrets (group `workflows`), a section of the route table: values a company stores
 * once and its HTTP steps use as `{{ secrets.NAME }}` (`domain/workflows/vault.ts`). Write-only: no answer
 * carries a value. Listing is an MCP tool (names only); storing one is not, so a value never passes through an
 * agent's context.
 */
const nameParams = /* @__PURE__ */ lazy(() =>
  z.object({
    name: z
      .string()
      .max(64)
      .regex(
        SECRET_NAME_PATTERN,
        'an upper-case name: A-Z, 0-9 and _, starting with a letter, at most 64 characters',
      )
      .describe("The secret's name, as definitions reference it: `{{ secrets.NAME }}`."),
  }),
);

const secretSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      name: z.string(),
      description: z.string(),
      version: z.number().int().describe('Bumped by every PUT of a new value.'),
      createdAt: timestampField(),
      updatedAt: timestampField().describe('When the value was last set.'),
    })
    .describe('A workflow secret without its value: no read answers the value.'),
);

const SECRET_EXAMPLE = {
  name: 'CRM_TOKEN',
  description: 'Bearer token of the CRM API',
  version: 2,
  createdAt: '2026-11-02T09:15:00.000Z',
  updatedAt: '2026-11-20T16:40:00.000Z',
};

export const WORKFLOW_SECRET_ROUTES = [
  route({
    method: 'GET',
    path: '/v1/workflows/secrets',
    group: 'workflows',
    operationId: 'listWorkflowSecrets',
    sdk: 'workflows.secrets.list',
    summary: "The company's workflow secrets, by name (never their values)",
    description:
      'Names, descriptions, versions and times of the secrets definitions may reference as ' +
      '`{{ secrets.NAME }}`; no value is ever answered.',
    tag: 'Workflows',
    scope: 'workflows:read',
    get query() {
      return z.object(pageQuery('Secrets', MAX_LIST_PAGE, MAX_LIST_PAGE));
    },
    get response() {
      return z.object({ secrets: z.array(secretSchema()), nextCursor: nextCursorSchema() });
    },
    examples: { response: { secrets: [SECRET_EXAMPLE], nextCursor: null } },
    agent: {
      tool: 'list_workflow_secrets',
      title: 'List workflow secrets',
      description:
        'The names (never the values) of the secrets workflow HTTP steps can use as {{ secrets.NAME }}, as ' +
        'GET /v1/workflows/secrets.',
      effect: 'read',
    },
  }),
  route({
    method: 'GET',
    path: '/v1/workflows/secrets/{name}',
    group: 'workflows',
    operationId: 'getWorkflowSecret',
    sdk: 'workflows.secrets.get',
    etag: true,
    summary: 'One workflow secret (never its value)',
    description: "The secret's name, description, version and times; another company's answers 404.",
    tag: 'Workflows',
    scope: 'workflows:read',
    get params() {
      return nameParams();
    },
    get response() {
      return z.object({ secret: secretSchema() });
    },
    errors: ['not_found'],
    examples: { response: { secret: SECRET_EXAMPLE } },
  }),
  route({
    method: 'PUT',
    path: '/v1/workflows/secrets/{name}',
    group: 'workflows',
    operationId: 'putWorkflowSecret',
    sdk: 'workflows.secrets.put',
    answersEtag: 'secret',
    ifMatch: true,
    summary: 'Store a workflow secret',
    description:
      'Stores the value HTTP steps use as `{{ secrets.NAME }}` in their `url`, `headers` and `body` (nowhere ' +
      'else). 201 for a new secret, 200 for a new value (runs started from then on use it). Encrypted at rest ' +
      'under a key of its own; no read ever answers it, and runs redact it from everything they record. A ' +
      `company holds at most 100 (403 \`workflow_secret_limit_reached\`). Honours If-Match with the ETag of GET.`,
    tag: 'Workflows',
    scope: 'workflows:admin',
    get params() {
      return nameParams();
    },
    get body() {
      return z
        .object({
          value: z.string().min(8).max(8192).describe('The secret: 8 to 8,192 characters. Never answered.'),
          description: z.string().max(500).optional().describe('What it is for (kept when left out).'),
        })
        .strict();
    },
    get response() {
      return z.object({ secret: secretSchema() });
    },
    get alsoAnswers() {
      return [
        { status: 201, description: 'Created: a new secret', response: z.object({ secret: secretSchema() }) },
      ];
    },
    errors: ['workflow_secret_limit_reached', 'conflict'],
    examples: {
      request: { value: 'crm_live_4f1c9a…', description: 'Bearer token of the CRM API' },
      response: { secret: SECRET_EXAMPLE },
    },
  }),
  route({
    method: 'DELETE',
    path: '/v1/workflows/secrets/{name}',
    group: 'workflows',
    operationId: 'deleteWorkflowSecret',
    sdk: 'workflows.secrets.delete',
    ifMatch: true,
    summary: 'Delete a workflow secret',
    description:
      'Runs started from then on that reference it fail the step with `secret_not_found`. Honours If-Match ' +
      'with the ETag of GET.',
    tag: 'Workflows',
    scope: 'workflows:admin',
    get params() {
      return nameParams();
    },
    get response() {
      return deletedAnswer({ name: z.string().describe('The deleted secret.') });
    },
    errors: ['not_found', 'conflict'],
    examples: { response: { deleted: true, name: 'CRM_TOKEN' } },
  }),
] as const;
