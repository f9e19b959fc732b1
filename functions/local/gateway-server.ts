import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppError } from '../shared/errors';
import { problemResponse } from '../shared/http/problem';

/** Node's limit on the request line and headers, above API Gateway's (so ours answers first, as a problem). */
export const MAX_HEADER_BYTES = 1_048_576;

/** What a client polling the stack while it starts is told to wait before it asks again, in seconds. */
export const STARTING_RETRY_AFTER_SECONDS = 1;

export interface GatewayServer {
  server: Server;
  url: string;
  port: number;
  /** Hands every request from now on, on new and open connections alike, to `listener`. */
  serve: (listener: (req: IncomingMessage, res: ServerResponse) => void) => void;
  /** Stops listening and ends every connection, idle or not (once: a second call waits for the first). */
  close: () => Promise<void>;
}

/**
 * Until the handlers are loaded every request is answered at once: 503 `service_unavailable` with
 * `Retry-After` and `Connection: close`, so a readiness probe, a supervisor's health check or a newcomer's
 * curl learns the stack is starting and never holds a connection that start-up has to wait for.
 */
const answerStarting = (_req: IncomingMessage, res: ServerResponse) => {
  const requestId = randomUUID();
  const problem = problemResponse(
    new AppError('service_unavailable', 'The local stack is starting; ask again in a moment.'),
    requestId,
  );
  const body = Buffer.from(problem.body);
  res.shouldKeepAlive = false;
  res.writeHead(problem.statusCode, {
    ...(problem.headers as Record<string, string>),
    'retry-after': String(STARTING_RETRY_AFTER_SECONDS),
    'x-request-id': requestId,
    'content-length': String(body.length),
    connection: 'close',
  });
  res.end(body);
};

/**
 * The gateway's HTTP server, listening on loopback from the first moment of start-up (so the port is the
 * stack's before anything else starts, and the runtime environment can deny it to outbound requests). It
 * answers `answerStarting` until the gateway `serve`s on it: the same server, so no connection a client
 * opened early (an idle one included) is ever waited for, and start-up takes as long with a probe as without.
 */
export const openGatewayServer = async (port = 0): Promise<GatewayServer> => {
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, answerStarting);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    server,
    url: `http://127.0.0.1:${actual}`,
    port: actual,
    serve: (listener) => {
      server.removeAllListeners('request');
      server.on('request', listener);
    },
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
};
