import { apiResourcePath, ROUTES, type RouteDefinition } from '../shared/routes/route-table';

/**
 * How the local API Gateway emulator finds the route of a request: the route table's paths compiled to
 * patterns, matched as API Gateway does.
 */
export interface CompiledRoute {
  route: RouteDefinition;
  resource: string;
  pattern: RegExp;
  names: string[];
}

const compile = (route: RouteDefinition): CompiledRoute => {
  const resource = apiResourcePath(route.path);
  const names: string[] = [];
  const source = resource
    .split('/')
    .map((segment) => {
      const param = /^\{(.+)\}$/.exec(segment);
      if (!param?.[1]) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(param[1]);
      return '([^/]+)';
    })
    .join('/');
  return { route, resource, pattern: new RegExp(`^${source}$`), names };
};

const COMPILED = ROUTES.map(compile);

/**
 * Resources are matched before methods, and literal segments win over parameters, as in API Gateway. A
 * resource without the method answers `allow` (the methods it has); a path parameter that is not valid
 * percent-encoded UTF-8 answers `malformed`.
 */
export type RouteMatch =
  | { compiled: CompiledRoute; pathParameters: Record<string, string> }
  | { allow: string[] }
  | { malformed: true };

export const matchRoute = (method: string, resourcePath: string): RouteMatch | undefined => {
  const candidates = COMPILED.map((c) => ({ c, m: c.pattern.exec(resourcePath) }))
    .filter((x) => x.m !== null)
    .sort((a, b) => a.c.names.length - b.c.names.length);
  const resource = candidates[0]?.c.resource;
  const onResource = candidates.filter((x) => x.c.resource === resource);
  const hit = onResource.find((x) => x.c.route.method === method);
  if (!hit?.m) {
    return onResource.length > 0 ? { allow: onResource.map((x) => x.c.route.method) } : undefined;
  }
  const pathParameters: Record<string, string> = {};
  for (const [i, name] of hit.c.names.entries()) {
    try {
      pathParameters[name] = decodeURIComponent(hit.m[i + 1] ?? '');
    } catch {
      return { malformed: true };
    }
  }
  return { compiled: hit.c, pathParameters };
};

/** API Gateway limits the request line and headers to 10 240 bytes in all; a longer URL is refused with 414. */
export const MAX_URL_BYTES = 8_192;
