import type { Deprecation, RouteDefinition } from '../routes/route-definition';

/**
 * Deprecated inputs, answered where they are used: a request that sends a query parameter its route declares
 * in `deprecatedQuery` is answered with `Deprecation` (RFC 9745: `@<epoch seconds>`, when it was deprecated)
 * and `Sunset` (RFC 8594: the HTTP-date from which it may stop working). The OpenAPI document marks the
 * parameter `deprecated: true` and declares both headers on the operation's answers (`http/openapi.ts`).
 */
const epochSeconds = (day: string): number => Date.parse(`${day}T00:00:00Z`) / 1000;

/** The `Deprecation` and `Sunset` values of one deprecation. */
export const deprecationHeaderValues = (
  d: Pick<Deprecation, 'since' | 'sunset'>,
): { deprecation: string; sunset: string } => ({
  deprecation: `@${epochSeconds(d.since)}`,
  sunset: new Date(epochSeconds(d.sunset) * 1000).toUTCString(),
});

/**
 * The headers of an answer to a request that used deprecated query parameters (none when it used none). With
 * several, the earliest deprecation and the earliest sunset are answered: what the caller must act on first.
 */
export const deprecationHeaders = (
  route: Pick<RouteDefinition, 'deprecatedQuery'>,
  query: Readonly<Record<string, unknown>> | undefined,
): Record<string, string> => {
  const used = Object.entries(route.deprecatedQuery ?? {})
    .filter(([name]) => query?.[name] !== undefined)
    .map(([, d]) => d);
  if (used.length === 0) return {};
  const first = (key: 'since' | 'sunset') => used.map((d) => d[key]).sort()[0] as Deprecation[typeof key];
  return deprecationHeaderValues({ since: first('since'), sunset: first('sunset') });
};
