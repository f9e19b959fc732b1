import { ResponseType, type RestApiBase } from 'aws-cdk-lib/aws-apigateway';
import {
  GATEWAY_RESPONSE_HEADERS,
  GATEWAY_RESPONSES,
  type GatewayResponseType,
  gatewayResponseTemplate,
} from '../functions/shared/http/gateway-responses';

/**
 * DEFAULT_4XX and DEFAULT_5XX are fallbacks: giving them a status code would change the status of every
 * response type that is not customised (a 415, a WAF 403, an integration timeout 504) to that one code,
 * so they keep each type's own status and only supply the problem+json body and headers.
 */
const FALLBACK_TYPES: readonly GatewayResponseType[] = ['DEFAULT_4XX', 'DEFAULT_5XX'];

/**
 * Gateway response header mappings: a `$context.x` value maps from the context variable (`context.x`), any
 * other value is a static string, which API Gateway takes in single quotes.
 */
export const gatewayResponseHeaders = (
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> =>
  Object.fromEntries(
    Object.entries({ ...GATEWAY_RESPONSE_HEADERS, ...extra }).map(([name, value]) => {
      if (value.startsWith('$context.')) return [name, value.slice(1)];
      if (value.includes("'")) throw new Error(`gateway response header ${name} cannot hold a quote`);
      return [name, `'${value}'`];
    }),
  );

/** Installs every gateway response of the shared definitions, so API Gateway answers in problem+json too. */
export const addGatewayResponses = (api: RestApiBase): void => {
  for (const definition of GATEWAY_RESPONSES) {
    api.addGatewayResponse(definition.type, {
      type: ResponseType.of(definition.type),
      statusCode: FALLBACK_TYPES.includes(definition.type) ? undefined : String(definition.statusCode),
      responseHeaders: gatewayResponseHeaders(definition.headers),
      templates: { 'application/json': gatewayResponseTemplate(definition) },
    });
  }
};
