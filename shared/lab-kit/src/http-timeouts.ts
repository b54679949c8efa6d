// Request and header timeouts for every lab's HTTP server, and a JSON answer when one fires.
//
// What Node 20's http server does by itself (lib/_http_server.js in v20.20, and measured):
// - `headersTimeout` (default 60 s): a request's headers must be complete this long after its
//   first byte; for the first request of a connection the clock starts when the connection
//   opens, so a client that connects and sends nothing is timed out too.
// - `requestTimeout` (default 300 s): the same for the whole request, headers and body. It stops
//   once the request is in: a handler that takes long to answer is never cut by it.
// - Neither is a timer per connection. One interval, `connectionsCheckingInterval` (default
//   30 s), looks for expired requests, so a timeout fires up to that much after its bound.
// - An expired request is a 'clientError' on the server with code ERR_HTTP_REQUEST_TIMEOUT
//   (the same code for headers and body). With no listener, Node writes
//   `HTTP/1.1 408 Request Timeout` with no body and destroys the socket: a client that
//   announced a body and sent nothing held its connection for about five minutes, then got
//   that bare 408, with none of the JSON every other refusal of the labs carries.
// - A 'clientError' listener replaces Node's answer for every client error, not only the
//   timeout (bytes that are not HTTP: 400; headers over `maxHeaderSize`: 431). So the
//   listener below answers each of them and closes the socket itself, as Node would have.
// - `keepAliveTimeout` (default 5 s): an idle connection between two requests is closed without
//   a word after this, plus one second Node 20.20 adds so that the client, told
//   `Keep-Alive: timeout=5`, gives the connection up first. uvicorn, which the course runs,
//   also closes an idle connection after 5 s (`--timeout-keep-alive`).
import {
  createServer,
  maxHeaderSize,
  STATUS_CODES,
  type RequestListener,
  type Server,
  type ServerOptions,
  type ServerResponse,
} from 'node:http';
import type { Duplex } from 'node:stream';
import { defineOptions, durationMs, OptionsError } from './options.ts';
import { MINUTE, SECOND } from './time.ts';

export const HTTP_TIMEOUT_OPTIONS = defineOptions({
  /**
   * How long a client has to send one whole request, headers and body. The labs' bodies are
   * small JSON (at most 16 KiB): on any network they arrive in well under a second, so 10 s
   * leaves a slow client plenty and still frees, soon, a connection that announced a body
   * and sent nothing.
   * @defaultValue 10000 (Node's own is 300000, five minutes)
   */
  requestTimeoutMs: durationMs('HTTP_REQUEST_TIMEOUT_MS', 10 * SECOND, { max: 5 * MINUTE }),
  /**
   * How long a client has for the headers alone (a few hundred bytes). At most the request timeout.
   * @defaultValue 5000 (Node's own is 60000)
   */
  headersTimeoutMs: durationMs('HTTP_HEADERS_TIMEOUT_MS', 5 * SECOND, { max: 5 * MINUTE }),
  /**
   * How long an idle connection stays open for the client's next request.
   * @defaultValue 5000 (Node's own, and uvicorn's)
   */
  keepAliveTimeoutMs: durationMs('HTTP_KEEP_ALIVE_TIMEOUT_MS', 5 * SECOND, { max: 5 * MINUTE }),
});
export type HttpTimeouts = ReturnType<typeof HTTP_TIMEOUT_OPTIONS.defaults>;

/**
 * How often Node looks for expired requests: a quarter of the shorter timeout, at most 1 s and at
 * least 10 ms. Node's 30 s would let a 10 s request timeout fire 40 s after the request began;
 * this way a timeout fires at most a quarter (and at most a second) late, and each look is one
 * pass over the connections that have a request in progress.
 */
export function connectionsCheckingIntervalMs(timeouts: HttpTimeouts): number {
  const shorter = Math.min(timeouts.headersTimeoutMs, timeouts.requestTimeoutMs);
  return Math.min(SECOND, Math.max(10, Math.floor(shorter / 4)));
}

/** The options for `http.createServer`. Refuses headers given longer than the whole request (Node would throw a RangeError). */
export function httpServerOptions(timeouts: HttpTimeouts): ServerOptions {
  const { requestTimeoutMs, headersTimeoutMs, keepAliveTimeoutMs } = timeouts;
  if (headersTimeoutMs > requestTimeoutMs) {
    const { headersTimeoutMs: headers, requestTimeoutMs: request } = HTTP_TIMEOUT_OPTIONS.specs;
    throw new OptionsError([
      `${headers.env} (${headersTimeoutMs}) must not be longer than ${request.env} (${requestTimeoutMs}): the headers are part of the request`,
    ]);
  }
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout: headersTimeoutMs,
    keepAliveTimeout: keepAliveTimeoutMs,
    connectionsCheckingInterval: connectionsCheckingIntervalMs(timeouts),
  };
}

/** A refusal in the labs' error shape: `{ "error": code, "message": sentence }` (lesson 01's ErrorResponse). */
export interface ClientErrorAnswer {
  status: number;
  error: string;
  message: string;
}

const seconds = (ms: number) => `${ms / SECOND} s`;

/** What a client error (a 'clientError' event's `err.code`) is answered with. */
export function clientErrorAnswer(code: string | undefined, timeouts: HttpTimeouts): ClientErrorAnswer {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        error: 'request-timeout',
        message: `The request did not arrive in time: its headers must be in within ${seconds(timeouts.headersTimeoutMs)}, all of it within ${seconds(timeouts.requestTimeoutMs)}`,
      };
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        error: 'headers-too-large',
        message: `The request line and headers are larger than ${maxHeaderSize} bytes`,
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return {
        status: 413,
        error: 'chunk-extensions-too-large',
        message: 'The chunk extensions of the request body are too large',
      };
    default:
      return { status: 400, error: 'bad-request', message: 'The request is not valid HTTP/1.1' };
  }
}

/** The bytes of a whole HTTP/1.1 response carrying `answer` as JSON, closing the connection. */
export function rawJsonResponse(answer: ClientErrorAnswer): string {
  const body = JSON.stringify({ error: answer.error, message: answer.message });
  return [
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * Answers every client error of `server` in JSON and closes its connection. A 'clientError'
 * has no request or response object: the answer is written to the socket itself, and only
 * when that cannot corrupt anything (Node's own rule): the socket still takes writes, and
 * no response of this connection has started (a second status line in the middle of a
 * response's body would be read as part of it). Otherwise the socket is only destroyed.
 */
export function answerClientErrorsInJson(server: Server, timeouts: HttpTimeouts): void {
  // Responses given to the app and not yet over, per connection (more than one when a client pipelines).
  const open = new WeakMap<Duplex, Set<ServerResponse>>();
  server.on('request', (req, res: ServerResponse) => {
    const socket = req.socket;
    const responses = open.get(socket) ?? new Set<ServerResponse>();
    open.set(socket, responses.add(res));
    res.once('close', () => responses.delete(res));
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const started = [...(open.get(socket) ?? [])].some((res) => res.headersSent);
    // ECONNRESET: the client is gone, there is nobody to answer.
    if (err.code === 'ECONNRESET' || !socket.writable || started) {
      socket.destroy();
      return;
    }
    // Destroyed once the answer is handed to the kernel: a client that never closes its side
    // must not keep the connection (an HTTP server's sockets stay open half-closed).
    socket.end(rawJsonResponse(clientErrorAnswer(err.code, timeouts)), () => socket.destroy());
  });
}

/** An http.Server with `timeouts` set and every client error, a timeout included, answered in JSON. */
export function createHttpServer(listener: RequestListener, timeouts: HttpTimeouts): Server {
  const server = createServer(httpServerOptions(timeouts), listener);
  answerClientErrorsInJson(server, timeouts);
  return server;
}
