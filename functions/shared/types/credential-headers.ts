/**
 * The headers that carry a credential, in the authorizer's order of precedence: `x-jwt-token`, `x-api-key`,
 * `x-auth-token` (an API key or a JWT), and `Authorization: Bearer` (the MCP route only). One list for every
 * place that must know them: the authorizer reads them, the web ACL rate-limits per value of each and redacts
 * each from its logs. A header missing here would be written to the WAF log in clear.
 */
export const CREDENTIAL_HEADERS = ['x-jwt-token', 'x-api-key', 'x-auth-token', 'authorization'] as const;
