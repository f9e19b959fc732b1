import { CHANNEL_ROUTES } from './channel-routes';
import { COMPANY_ROUTES } from './company-routes';
import { CONTACT_ROUTES } from './contact-routes';
import { DYNADATA_ROUTES } from './dynadata-routes';
import { DYNADATA_TYPE_ROUTES } from './dynadata-type-routes';
import { EVENT_ROUTES } from './event-routes';
import { KEY_ROUTES } from './key-routes';
import { MCP_ROUTES } from './mcp-routes';
import { MESSAGE_ROUTES } from './message-routes';
import { DOCS_ROUTES, PUBLIC_ROUTES } from './public-routes';
import type { RouteDefinition } from './route-definition';
import { SPEECH_JOB_ROUTES } from './speech-job-routes';
import { SPEECH_ROUTES } from './speech-routes';
import { STORAGE_ROUTES } from './storage-routes';
import { TRANSCODE_ROUTES } from './transcode-routes';
import { TRANSCRIPTION_ROUTES } from './transcription-routes';
import { USAGE_ROUTES } from './usage-routes';
import { WEBHOOK_ROUTES } from './webhook-routes';
import { WORKFLOW_ROUTES } from './workflow-routes';
import { WORKFLOW_SECRET_ROUTES } from './workflow-secret-routes';

export {
  apiResourcePath,
  ROUTE_GROUPS,
  type RouteDefinition,
  type RouteGroup,
} from './route-definition';

/**
 * The one route table. The CDK API stack builds resources and methods from it, the local gateway routes
 * from it, each group's router dispatches from it, and the OpenAPI document is generated from it.
 *
 * Paths are the public paths (`/v1/...`) in API Gateway `{param}` syntax. On AWS the stage is named `v1`,
 * so the REST API resource of a route is its path without the `/v1` prefix (see `apiResourcePath`).
 */
export const ROUTES = [
  ...PUBLIC_ROUTES,
  ...COMPANY_ROUTES,
  ...KEY_ROUTES,
  ...CONTACT_ROUTES,
  ...MESSAGE_ROUTES,
  ...DYNADATA_TYPE_ROUTES,
  ...DYNADATA_ROUTES,
  ...STORAGE_ROUTES,
  ...TRANSCRIPTION_ROUTES,
  ...TRANSCODE_ROUTES,
  ...SPEECH_ROUTES,
  ...SPEECH_JOB_ROUTES,
  ...USAGE_ROUTES,
  ...WORKFLOW_SECRET_ROUTES,
  ...WORKFLOW_ROUTES,
  ...MCP_ROUTES,
  ...DOCS_ROUTES,
  ...WEBHOOK_ROUTES,
  ...EVENT_ROUTES,
  ...CHANNEL_ROUTES,
] as const satisfies readonly RouteDefinition[];

export type Route = (typeof ROUTES)[number];
export type OperationId = Route['operationId'];
export type RouteOf<O extends OperationId> = Extract<Route, { operationId: O }>;

export const routeKey = (method: string, resourcePath: string): string => `${method} ${resourcePath}`;
