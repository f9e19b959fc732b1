import { parseIpRule } from '../auth/jwt-claims';
import { MAX_LIST_PAGE } from '../domain/pages';
import { identifierField, timestampField } from '../fields';
import { lazy } from '../lazy';
import { MAX_ACTIVE_API_KEYS } from '../types/api-keys';
import { SCOPES } from '../types/scopes';
import * as z from '../zod';
import { route } from './route-definition';
import { deletedAnswer, nextCursorSchema, pageQuery } from './schemas';

/**
 * The routes of a company's API keys (group `company`, with `company-routes.ts`): a section of the route
 * table. No MCP tool or workflow action offers them: a key's secret would land in an agent's context or a
 * run's history, and a credential should be made by its owner.
 */
const MAX_KEY_IPS = 20;

const apiKeySchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      id: z.string().describe('Key identifier (`key_…`); not the secret.'),
      name: z.string(),
      scopes: z.array(z.enum(SCOPES)),
      hint: z
        .string()
        .describe('The first characters of the secret, to recognise it; never enough to use it.'),
      status: z
        .enum(['active', 'expired', 'revoked'])
        .describe('`expired` past `expiresAt`, `revoked` once deleted; only `active` keys authenticate.'),
      createdAt: timestampField(),
      createdBy: z
        .string()
        .describe('The key that created this one (`key_…`, or a token id), or `operator`.'),
      expiresAt: timestampField().nullable().describe('When the key stops working; null: never.'),
      ips: z
        .array(z.string())
        .nullable()
        .describe('Addresses and CIDR blocks the key is accepted from; null: any.'),
      lastUsedAt: timestampField()
        .nullable()
        .describe('When the key last authenticated a request, to within an hour; null: never used.'),
      revokedAt: timestampField().nullable(),
    })
    .describe('An API key, without its secret.'),
);

const keyId = /* @__PURE__ */ lazy(() => z.object({ id: identifierField('Key identifier (`key_…`).') }));

/** What `POST /v1/keys` takes; the operator's `admin keys create` is checked against it too. */
export const createKeyBodySchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      name: z.string().trim().min(1).max(100).describe('What the key is for, to recognise it in lists.'),
      scopes: z
        .array(z.enum(SCOPES))
        .min(1)
        .max(SCOPES.length)
        .refine((scopes) => new Set(scopes).size === scopes.length, 'each scope once')
        .describe("What the key may do: a subset of the creating credential's scopes."),
      expiresAt: timestampField()
        .max(40)
        .optional()
        .describe(
          'When the key stops working (in the future). Absent: the creating credential’s own expiry, if it has one; otherwise never.',
        ),
      ips: z
        .array(
          z
            .string()
            .trim()
            .max(64)
            .refine((rule) => parseIpRule(rule) !== undefined, 'an IPv4 or IPv6 address or CIDR block'),
        )
        .min(1)
        .max(MAX_KEY_IPS)
        .optional()
        .describe(
          'Addresses and CIDR blocks the key is accepted from, as API Gateway sees the caller (never a ' +
            'forwarded header); inside the creating credential’s own list. Absent: that list, or any address.',
        ),
    })
    .strict(),
);

export const KEY_ROUTES = [
  route({
    method: 'GET',
    path: '/v1/keys',
    group: 'company',
    operationId: 'listApiKeys',
    sdk: 'keys.list',
    summary: "List the company's API keys",
    description:
      'Every key of the company, oldest first, with its status, scopes and when it was last used; revoked ' +
      'keys stay listed with `revokedAt`. Secrets are never shown again.',
    tag: 'API keys',
    scope: 'keys:admin',
    get query() {
      return z.object(pageQuery('Keys', MAX_LIST_PAGE, MAX_LIST_PAGE));
    },
    get response() {
      return z.object({ keys: z.array(apiKeySchema()), nextCursor: nextCursorSchema() });
    },
  }),
  route({
    method: 'POST',
    path: '/v1/keys',
    group: 'company',
    operationId: 'createApiKey',
    sdk: 'keys.create',
    summary: 'Create an API key',
    description:
      'A new key with a subset of the caller’s scopes (403 `api_key_scopes_exceed_caller`), optionally ' +
      'limited to addresses (inside the caller’s own, 403 `api_key_ips_exceed_caller`) and an expiry (no ' +
      `later than the caller's own). The secret is answered once. At most ${MAX_ACTIVE_API_KEYS} active keys ` +
      'per company (403 `api_key_limit_reached`).',
    tag: 'API keys',
    scope: 'keys:admin',
    idempotency: 'keyed',
    get body() {
      return createKeyBodySchema();
    },
    get response() {
      return z.object({
        key: apiKeySchema(),
        secret: z
          .string()
          .nullable()
          .describe(
            'The key itself (`sk-…`), shown only in this answer: store it. `null` in an idempotent replay ' +
              '(`Idempotent-Replayed: true`): the secret is never stored.',
          ),
      });
    },
    successStatus: 201,
    shownOnce: ['secret'],
    errors: ['api_key_limit_reached', 'api_key_scopes_exceed_caller', 'api_key_ips_exceed_caller'],
    examples: {
      request: {
        name: 'invoice sync',
        scopes: ['dynadata:read', 'dynadata:write'],
        expiresAt: '2027-06-30T00:00:00.000Z',
        ips: ['203.0.113.0/24'],
      },
    },
  }),
  route({
    method: 'GET',
    path: '/v1/keys/{id}',
    group: 'company',
    operationId: 'getApiKey',
    sdk: 'keys.get',
    summary: 'Fetch an API key',
    description: "One key of the company, without its secret. Another company's key answers 404 `not_found`.",
    tag: 'API keys',
    scope: 'keys:admin',
    get params() {
      return keyId();
    },
    get response() {
      return z.object({ key: apiKeySchema() });
    },
    errors: ['not_found'],
  }),
  route({
    method: 'DELETE',
    path: '/v1/keys/{id}',
    group: 'company',
    operationId: 'revokeApiKey',
    sdk: 'keys.revoke',
    summary: 'Revoke an API key',
    description:
      'The key and every token derived from it stop authenticating: at once for new authorizer instances, ' +
      'within `AUTHORIZER_CACHE_TTL_SECONDS` (30 s by default) for warm ones. The key stays listed, ' +
      '`revoked`. Revoking a revoked key answers it unchanged; a caller may revoke the key it calls with.',
    tag: 'API keys',
    scope: 'keys:admin',
    get params() {
      return keyId();
    },
    get response() {
      return deletedAnswer({
        id: z.string().describe('The revoked key.'),
        key: apiKeySchema().describe('The key as it stays listed, `revoked`.'),
      });
    },
    errors: ['not_found'],
  }),
] as const;
