import { describe, expect, it } from 'vitest';
import { jobRoute } from '../../functions/shared/routes/job-routes';
import { route } from '../../functions/shared/routes/route-definition';
import * as z from '../../functions/shared/zod';

/**
 * A route declared with a member the route shape does not have does not compile: `npm run typecheck` checks
 * this file, and each `@ts-expect-error` below fails it if the line under it ever compiles.
 */
describe('route declarations', () => {
  it('refuse, at compile time, a member the route shape does not declare', () => {
    const declare = () => [
      route({
        method: 'POST',
        path: '/v1/example',
        group: 'public',
        operationId: 'example',
        sdk: 'examples.create',
        summary: 'Example',
        tag: 'Example',
        scope: 'public',
        response: z.object({}),
        // @ts-expect-error a misspelt `idempotency` would silently turn replay protection off
        idempotent: true,
      }),
      jobRoute({
        method: 'GET',
        group: 'transcodes',
        path: '/v1/transcodes/{id}',
        tag: 'Example',
        scope: 'transcodes:read',
        operationId: 'exampleJob',
        sdk: 'examples.get',
        summary: 'Example',
        response: () => z.object({}),
        errors: ['not_found'],
        // @ts-expect-error not a member of a job route
        etags: true,
      }),
      // @ts-expect-error a route without its SDK method (`sdk`: a name, or null for none) does not compile
      route({
        method: 'GET',
        path: '/v1/example',
        group: 'public',
        operationId: 'example',
        summary: 'Example',
        tag: 'Example',
        scope: 'public',
        response: z.object({}),
      }),
      route({
        method: 'GET',
        path: '/v1/example',
        group: 'public',
        operationId: 'example',
        // @ts-expect-error an SDK method is a resource then a verb, joined by a dot
        sdk: 'example',
        summary: 'Example',
        tag: 'Example',
        scope: 'public',
        response: z.object({}),
      }),
    ];
    expect(typeof declare).toBe('function');
  });
});
