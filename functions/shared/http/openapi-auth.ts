import { SCOPES } from '../types/scopes';

/**
 * How the OpenAPI document explains authentication: the security schemes (what each header carries) and the
 * rules every scheme shares (precedence, JWT claims, scopes), as a section of `info.description`.
 */
const scopeList = SCOPES.map((s) => `\`${s}\``).join(', ');

export const SECURITY_SCHEMES = {
  apiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-key',
    description:
      '`x-api-key: sk-…`: a long-lived API key of the company, shown once when created and stored only as a ' +
      'hash; revoked by its owner. Recommended for integrations. A key holds scopes (all by default): ' +
      `${scopeList}. To try operations on the documentation page, paste a key here.`,
  },
  jwtToken: {
    type: 'apiKey',
    in: 'header',
    name: 'x-jwt-token',
    description:
      '`x-jwt-token: <JWT>`: a short-lived token (300 s by default) this service signs for its own agents. ' +
      'Its claim `kind` must be `v1`: a token issued for another purpose (an OAuth channel connection, say) ' +
      'is refused with 401. An `ips` claim limits it to those addresses, as seen at the edge (forwarded ' +
      'headers are never trusted). A `scopes` claim limits it to those scopes; a token without one ' +
      'authenticates, but every scoped operation refuses it with 403 `insufficient_scope`.',
  },
  authToken: {
    type: 'apiKey',
    in: 'header',
    name: 'x-auth-token',
    description:
      '`x-auth-token`: either form, for convenience: a value starting with `sk-` is an API key, any other ' +
      'value is a JWT.',
  },
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description:
      '`Authorization: Bearer <sk- key or JWT>`, the form MCP clients send: accepted by POST /v1/mcp only, ' +
      'after the three headers above (`sk-` → API key, else JWT).',
  },
};

export const AUTHENTICATION_SECTION = [
  '## Authentication',
  '',
  'Every operation but the public ones (the plan catalog, this document and its page) takes one credential ' +
    'header; all of them resolve to the same company, count against the same `api_requests` allowance and ' +
    'reach the same operations.',
  '',
  '- **Precedence**: `x-jwt-token`, then `x-api-key`, then `x-auth-token` (then, on POST /v1/mcp only, ' +
    '`Authorization: Bearer`). The first header present decides alone: an invalid one is refused with 401, ' +
    'never passed over for the next.',
  '- **401 `unauthorized`**: a missing, malformed, unknown, revoked or expired credential, a JWT whose ' +
    '`kind` is not `v1`, or a caller outside a token’s `ips` — all answered alike.',
  '- **403 `insufficient_scope`**: the credential lacks the scope the operation names (`x-required-scope`; ' +
    'its `requiredScope` member says which). Other companies’ ids answer 404, exactly like missing ones.',
  '',
  'Try it: open **Authorize**, paste an API key under `apiKey`, then **Try it out** on an operation.',
].join('\n');
