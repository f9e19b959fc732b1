import { describe, expect, it } from 'vitest';
import { findAction } from '../../functions/shared/domain/workflows/actions';
import { buildOpenApiDocument } from '../../functions/shared/http/openapi';
import { TOOLS } from '../../functions/shared/mcp/tools';
import {
  httpPartsOf,
  inputPointerOf,
  isObjectSchema,
  operationInput,
} from '../../functions/shared/operations/operation-input';
import { registerWorkflowActions } from '../../functions/shared/operations/workflow-actions';
import type { RouteDefinition } from '../../functions/shared/routes/route-definition';
import { ROUTES } from '../../functions/shared/routes/route-table';
import type * as z from '../../functions/shared/zod';

/**
 * One operation, every door (ARCHITECTURE §3): an operation marked for agents or workflows is served there with
 * its own input object, built once from the route's own schemas, never a second declaration of it.
 */
registerWorkflowActions();

const table: readonly RouteDefinition[] = ROUTES;
const forAgents = table.filter((route) => route.agent);
const forWorkflows = table.filter((route) => route.workflow);

/** The schema of each input member, as the route declares it (path, query, body or payload). */
const routeMembers = (route: RouteDefinition): Map<string, z.ZodType> => {
  const members = new Map<string, z.ZodType>();
  for (const part of [route.params, route.query]) {
    for (const [name, schema] of Object.entries(part?.shape ?? {})) {
      members.set(route.inputNames?.[name] ?? name, schema as z.ZodType);
    }
  }
  if (route.body && route.payload) members.set(route.payload, route.body);
  else if (route.body && isObjectSchema(route.body)) {
    for (const [name, schema] of Object.entries(route.body.shape)) members.set(name, schema as z.ZodType);
  }
  return members;
};

describe('operations at every door', () => {
  it('offers agents and workflows the operations the issue names', () => {
    expect(forAgents.length).toBeGreaterThanOrEqual(28);
    expect(forWorkflows.length).toBeGreaterThanOrEqual(15);
    for (const id of [
      'sendMessage',
      'createTranscode',
      'createTranscription',
      'createSpeechJob',
      'listEvents',
    ]) {
      expect(forAgents.map((r) => r.operationId)).toContain(id);
    }
  });

  it.each(forAgents.map((route) => [route.agent?.tool, route] as const))(
    'MCP tool %s takes its operation’s own input object, scope and handler',
    (name, route) => {
      const tool = TOOLS().find((t) => t.name === name);
      expect(tool?.route).toBe(route);
      expect(tool?.input).toBe(operationInput(route));
      expect(operationInput(route)).toBe(operationInput(route));
    },
  );

  it.each(forWorkflows.map((route) => [route.workflow?.action, route] as const))(
    'workflow action %s takes its operation’s own input object and scope',
    (name, route) => {
      const action = findAction(name as string);
      expect(action?.input).toBe(operationInput(route));
      expect(action?.scope).toBe(route.scope);
    },
  );

  it('builds each door input from the very schemas of the route, not copies', () => {
    for (const route of [...forAgents, ...forWorkflows]) {
      const input = operationInput(route);
      if (!route.params && !route.query && route.body && !route.payload) {
        expect(input, route.operationId).toBe(route.body);
        continue;
      }
      if (!isObjectSchema(input)) continue;
      for (const [name, schema] of routeMembers(route)) expect(input.shape[name], name).toBe(schema);
      expect(Object.keys(input.shape).sort()).toEqual([...routeMembers(route).keys()].sort());
    }
  });

  it('gives create_speech_job and actions/media/speech the route’s `timings` member', () => {
    const tool = TOOLS().find((t) => t.name === 'create_speech_job');
    const action = findAction('actions/media/speech');
    for (const input of [tool?.input, action?.input]) {
      expect(input?.safeParse({ text: 'Hi.', timings: false }).success).toBe(true);
      expect(input?.safeParse({ text: 'Hi.', timings: 'no' }).success).toBe(false);
    }
  });

  it('has one tool per name and one action per name', () => {
    const tools = TOOLS().map((t) => t.name);
    expect(new Set(tools).size).toBe(tools.length);
    expect(tools.length).toBe(forAgents.length);
    const actions = forWorkflows.map((r) => r.workflow?.action);
    expect(new Set(actions).size).toBe(actions.length);
  });

  it('lists every tool with its scope in the /v1/mcp description of the document', () => {
    const doc = buildOpenApiDocument() as { paths: Record<string, Record<string, { description: string }>> };
    const description = doc.paths['/v1/mcp']?.post?.description ?? '';
    for (const tool of TOOLS()) expect(description).toContain(`\`${tool.name}\` (${tool.route.scope})`);
  });

  it('splits an input back into path, query and body, and points refusals into the input', () => {
    const getItem = table.find((r) => r.operationId === 'getDynadataItem') as RouteDefinition;
    expect(httpPartsOf(getItem, { type: 'contacts', id: 'a1' })).toEqual({
      params: { type: 'contacts', _id: 'a1' },
      query: {},
      body: undefined,
    });
    expect(inputPointerOf(getItem, '/params/_id')).toBe('/id');
    const create = table.find((r) => r.operationId === 'createDynadataItem') as RouteDefinition;
    expect(httpPartsOf(create, { type: 'contacts', item: { name: 'Ada' } }).body).toEqual({ name: 'Ada' });
    expect(inputPointerOf(create, '/body/name')).toBe('/item/name');
    const runs = table.find((r) => r.operationId === 'listWorkflowRuns') as RouteDefinition;
    const parsed = operationInput(runs).parse({ workflowId: 'w1', limit: 5 }) as Record<string, unknown>;
    expect(httpPartsOf(runs, parsed)).toEqual({ params: { id: 'w1' }, query: { limit: 5 }, body: undefined });
    expect(inputPointerOf(runs, '/query/limit')).toBe('/limit');
  });

  it('refuses a member the operation does not have at the doors', () => {
    const getItem = table.find((r) => r.operationId === 'getDynadataItem') as RouteDefinition;
    expect(operationInput(getItem).safeParse({ type: 'contacts', id: 'a1', extra: 1 }).success).toBe(false);
  });
});
