// A client that starts a request and stops: the slow or hostile client the HTTP timeouts are
// for (http-timeouts.ts). It writes on a raw TCP socket, because node:http and fetch only send
// whole requests, then waits until the server closes the connection and reads every answer.
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { SECOND } from './time.ts';

export interface StallOptions {
  /**
   * Where the request stops: 'body' sends complete headers announcing a 100-byte JSON body and no
   * body; 'headers' stops in the middle of a header line.
   */
  stall: 'body' | 'headers';
  /** @defaultValue 'POST' */
  method?: string;
  /** @defaultValue '/exports' */
  path?: string;
  /** When the server has not closed the connection by then, the client gives up and closes it. @defaultValue 30000 */
  giveUpMs?: number;
}

/** One HTTP response as read off the socket. */
export interface RawHttpAnswer {
  status: number;
  /** Names in lower case. */
  headers: Record<string, string>;
  body: string;
  /** The body parsed, or undefined when it is not JSON. */
  json: unknown;
}

export interface StalledExchange {
  /** Every response the server sent on the connection, in order. */
  answers: RawHttpAnswer[];
  /** How long after the request was sent the server closed the connection; undefined when the client gave up first. */
  closedAfterMs: number | undefined;
  /** All the bytes received, for failure messages. */
  received: string;
}

/** The request's bytes, up to where it stops. */
export function stalledRequestText(options: StallOptions): string {
  const start = `${options.method ?? 'POST'} ${options.path ?? '/exports'} HTTP/1.1\r\nHost: 127.0.0.1\r\n`;
  if (options.stall === 'headers') return `${start}Content-Type: appl`;
  return `${start}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n`;
}

/** Sends a request that stops where `options.stall` says, and reads until the server closes. */
export function stallRequest(baseUrl: string, options: StallOptions): Promise<StalledExchange> {
  const { hostname, port } = new URL(baseUrl);
  const giveUpMs = options.giveUpMs ?? 30 * SECOND;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let sentAt = 0;
    let gaveUp = false;
    const socket = connect(Number(port), hostname, () => {
      sentAt = performance.now();
      socket.write(stalledRequestText(options));
    });
    const giveUp = setTimeout(() => {
      gaveUp = true;
      socket.destroy();
    }, giveUpMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A reset after the answers arrived still ends the exchange: what matters is what came back.
    socket.on('error', (err) => {
      if (chunks.length === 0 && !gaveUp) reject(err);
    });
    socket.on('close', () => {
      clearTimeout(giveUp);
      const received = Buffer.concat(chunks).toString('utf8');
      resolve({
        answers: parseHttpAnswers(received),
        closedAfterMs: gaveUp ? undefined : performance.now() - sentAt,
        received,
      });
    });
  });
}

/** Splits the bytes of one connection into its responses (each framed by Content-Length, as the labs' are). */
export function parseHttpAnswers(text: string): RawHttpAnswer[] {
  const answers: RawHttpAnswer[] = [];
  let rest = text;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return answers;
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const bodyBytes = Buffer.from(rest.slice(end + 4), 'utf8');
    const body = bodyBytes.subarray(0, length).toString('utf8');
    answers.push({ status, headers, body, json: parseJson(body) });
    rest = bodyBytes.subarray(length).toString('utf8');
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
