// http-timeouts.ts on a real node:http server in this process, with a real TCP client that
// stops half-way (stalled-request.ts). Only upper bounds on time are asserted, generously
// (a loaded CI machine answers late, never early), plus the lower bound Node cannot beat: no
// 408 before its timeout.
import { connect, type AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  clientErrorAnswer,
  connectionsCheckingIntervalMs,
  createHttpServer,
  HTTP_TIMEOUT_OPTIONS,
  httpServerOptions,
  rawJsonResponse,
  type HttpTimeouts,
} from '../src/http-timeouts.ts';
import { expectJsonTimeout } from '../src/http-timeouts-testing.ts';
import { OptionsError } from '../src/options.ts';
import { parseHttpAnswers, stallRequest } from '../src/stalled-request.ts';

const SHORT: HttpTimeouts = { requestTimeoutMs: 1500, headersTimeoutMs: 500, keepAliveTimeoutMs: 5000 };

describe('HTTP_TIMEOUT_OPTIONS and the server options', () => {
  it('When nothing is set, Then the course-scale values are used: 10 s for a request, 5 s for its headers, 5 s keep-alive', () => {
    expect(HTTP_TIMEOUT_OPTIONS.read({ env: {} })).toEqual({
      requestTimeoutMs: 10_000,
      headersTimeoutMs: 5000,
      keepAliveTimeoutMs: 5000,
    });
  });

  it('When the environment sets them, Then they are read, and a zero is refused naming the variable', () => {
    const env = { HTTP_REQUEST_TIMEOUT_MS: '1500', HTTP_HEADERS_TIMEOUT_MS: '500', HTTP_KEEP_ALIVE_TIMEOUT_MS: '2000' };
    expect(HTTP_TIMEOUT_OPTIONS.read({ env })).toEqual({
      requestTimeoutMs: 1500,
      headersTimeoutMs: 500,
      keepAliveTimeoutMs: 2000,
    });
    expect(() => HTTP_TIMEOUT_OPTIONS.read({ env: { HTTP_REQUEST_TIMEOUT_MS: '0' } })).toThrow(
      /HTTP_REQUEST_TIMEOUT_MS must be a whole number of milliseconds/,
    );
  });

  it("When the headers may take longer than the whole request, Then it is refused naming both variables (Node's RangeError said neither)", () => {
    const bad = { ...SHORT, headersTimeoutMs: 2000 };
    expect(() => httpServerOptions(bad)).toThrow(OptionsError);
    expect(() => httpServerOptions(bad)).toThrow(
      /HTTP_HEADERS_TIMEOUT_MS \(2000\) must not be longer than HTTP_REQUEST_TIMEOUT_MS \(1500\)/,
    );
  });

  it('When the options are built, Then Node checks for expired requests every quarter of the shorter timeout, never less often than every second', () => {
    expect(httpServerOptions(SHORT)).toEqual({
      requestTimeout: 1500,
      headersTimeout: 500,
      keepAliveTimeout: 5000,
      connectionsCheckingInterval: 125,
    });
    expect(connectionsCheckingIntervalMs(HTTP_TIMEOUT_OPTIONS.defaults())).toBe(1000);
    expect(connectionsCheckingIntervalMs({ ...SHORT, headersTimeoutMs: 1, requestTimeoutMs: 1 })).toBe(10);
  });

  it("When a client error is answered, Then the bytes are one HTTP/1.1 response: the status, JSON in the labs' shape, its length, Connection: close", () => {
    const [answer, ...more] = parseHttpAnswers(rawJsonResponse(clientErrorAnswer('ERR_HTTP_REQUEST_TIMEOUT', SHORT)));
    expect(more).toEqual([]);
    expect(answer).toMatchObject({
      status: 408,
      headers: { 'content-type': 'application/json; charset=utf-8', connection: 'close' },
    });
    expect(answer?.json).toEqual({
      error: 'request-timeout',
      message: expect.stringMatching(/headers must be in within 0.5 s, all of it within 1.5 s/),
    });
    expect(clientErrorAnswer('HPE_HEADER_OVERFLOW', SHORT)).toMatchObject({ status: 431, error: 'headers-too-large' });
    expect(clientErrorAnswer('HPE_INVALID_METHOD', SHORT)).toMatchObject({ status: 400, error: 'bad-request' });
  });
});

describe('createHttpServer: a client that stops half-way', () => {
  let server: Server | undefined;
  afterEach(async () => {
    const closing = server;
    server = undefined;
    if (closing) await new Promise((done) => closing.close(done));
  });

  /** A server whose handler reads the whole body, then answers 200 JSON (after `delayMs`). */
  async function start(timeouts: HttpTimeouts, delayMs = 0): Promise<string> {
    server = createHttpServer((req, res) => {
      req.resume();
      req.on('end', () => {
        setTimeout(() => res.setHeader('content-type', 'application/json').end('{"ok":true}'), delayMs);
      });
    }, timeouts);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('When the headers announce a body that never comes, Then a JSON 408 arrives soon after the request timeout (not minutes) and the connection closes', async () => {
    const url = await start(SHORT);
    const exchange = await stallRequest(url, { stall: 'body' });
    // The body is held to the request timeout, not to the shorter headers timeout.
    expectJsonTimeout(exchange, SHORT.requestTimeoutMs);
    expect((exchange.answers[0]!.json as { message: string }).message).toMatch(/within 0.5 s, all of it within 1.5 s/);
    // The server still serves.
    expect((await fetch(url, { method: 'POST', body: 'x' })).status).toBe(200);
  });

  it('When the headers never finish, Then a JSON 408 arrives soon after the headers timeout and the connection closes', async () => {
    const url = await start(SHORT);
    expectJsonTimeout(await stallRequest(url, { stall: 'headers' }), SHORT.headersTimeoutMs);
  });

  it("When the server gives Node's own answer (a bare 408, no body), Then expectJsonTimeout fails", () => {
    const bare = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';
    const exchange = { answers: parseHttpAnswers(bare), closedAfterMs: SHORT.requestTimeoutMs + 10, received: bare };
    expect(() => expectJsonTimeout(exchange, SHORT.requestTimeoutMs)).toThrow();
    // ...and so does a JSON 408 that took Node's five minutes.
    const late = {
      ...exchange,
      answers: parseHttpAnswers(rawJsonResponse(clientErrorAnswer('ERR_HTTP_REQUEST_TIMEOUT', SHORT))),
      closedAfterMs: 300_000,
    };
    expect(() => expectJsonTimeout(late, SHORT.requestTimeoutMs)).toThrow();
    expect(() =>
      expectJsonTimeout({ ...late, closedAfterMs: SHORT.requestTimeoutMs + 10 }, SHORT.requestTimeoutMs),
    ).not.toThrow();
  });

  it('When the request is in and the handler takes longer than the request timeout, Then it still answers: the timeout covers receiving only', async () => {
    const url = await start({ ...SHORT, requestTimeoutMs: 300, headersTimeoutMs: 300 }, 1000);
    const answer = await fetch(url, { method: 'POST', body: 'x' });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ ok: true });
  });

  it("When a request is not HTTP or its headers are too large, Then the answer is a JSON 400 or 431 instead of Node's bare one", async () => {
    const url = await start(SHORT);
    expect(await rawExchange(url, 'NOT HTTP AT ALL\r\n\r\n')).toMatchObject([
      { status: 400, json: { error: 'bad-request' } },
    ]);
    const huge = `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`;
    expect(await rawExchange(url, huge)).toMatchObject([{ status: 431, json: { error: 'headers-too-large' } }]);
  });

  it('When a client error comes while a response is under way, Then no second status line is written into it: the connection is only closed', async () => {
    // The handler starts a response and never ends it; the client then pipelines bytes that are not HTTP.
    server = createHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    }, SHORT);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const received = await rawText(url, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n', async (socket) => {
      await waitForData(socket);
      socket.write('NOT HTTP\r\n\r\n');
    });
    expect(received).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(received).toContain('partial');
    expect(received).not.toMatch(/HTTP\/1\.1 400/);
  });
});

/** Writes `text`, then reads until the server closes; returns the answers. */
async function rawExchange(url: string, text: string) {
  return parseHttpAnswers(await rawText(url, text));
}

async function rawText(
  url: string,
  text: string,
  after?: (socket: ReturnType<typeof connect>) => Promise<void>,
): Promise<string> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => {}); // a reset after the answer: what came back is what counts
  socket.write(text);
  await after?.(socket);
  // The server closes every connection it refuses: a hang here fails the test by its time limit.
  await closed;
  return Buffer.concat(chunks).toString('utf8');
}

function waitForData(socket: ReturnType<typeof connect>): Promise<void> {
  return new Promise<void>((resolve) => socket.once('data', () => resolve()));
}
