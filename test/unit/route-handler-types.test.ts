import { describe, expect, it } from 'vitest';
import type { GroupHandlers } from '../../functions/shared/http/router';
import type { ROUTES } from '../../functions/shared/routes/route-table';
import type { TRANSCODE_ROUTES } from '../../functions/shared/routes/transcode-routes';

/**
 * A handler's body is typed from its route's response schema: these handlers would not compile without the
 * expectation comments (`npm run typecheck` fails on an expectation that no error meets).
 */
describe('route handler bodies', () => {
  it('refuses at compile time a body of another shape than the route answers', () => {
    const handlers: Partial<GroupHandlers<typeof ROUTES>> = {
      // @ts-expect-error `GET /v1/self` answers `{ company }`
      getSelf: async () => ({ body: { self: true } }),
      // @ts-expect-error a usage snapshot answers `success: true`
      getUsage: async () => ({ body: { success: false } }),
      // A raw body (the documentation page) is not JSON and is not checked against the schema.
      getDocsPage: async () => ({ raw: '<!doctype html>' }),
    };
    expect(Object.keys(handlers)).toEqual(['getSelf', 'getUsage', 'getDocsPage']);
  });
});

describe('a group handler map', () => {
  it('refuses at compile time a missing handler and a handler of another group', () => {
    const handlers = async () => ({ body: {} }) as never;
    const groups = (): GroupHandlers<typeof TRANSCODE_ROUTES>[] => [
      // @ts-expect-error `retryTranscode` of the group has no handler
      {
        createTranscode: handlers,
        listTranscodes: handlers,
        getTranscode: handlers,
        cancelTranscode: handlers,
      },
      {
        createTranscode: handlers,
        listTranscodes: handlers,
        getTranscode: handlers,
        cancelTranscode: handlers,
        retryTranscode: handlers,
        // @ts-expect-error `getSelf` is the company group's
        getSelf: handlers,
      },
    ];
    expect(typeof groups).toBe('function');
  });
});
