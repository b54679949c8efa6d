// The hostile-input battery, as a vitest suite any export API can be graded by: what a
// careless or hostile client sends (bytes that do not decode, bodies too big or of the
// wrong type, ids that try to climb out of a folder, methods a route does not take, a
// flood of requests) must get a 4xx JSON answer and a short log line, never a 500 and
// never a stack trace per request. Lesson 01 runs it against its app
// (test/app.hostile-input.test.ts), lesson 03 against its background server, and every
// later HTTP lab inherits it:
//
//   import { describeHostileInputBattery } from '@tasks-lab/01-state-machine/hostile-input';
//   describeHostileInputBattery('lab 11 API', { start: (log) => startApi(0, { log }) });
//
// Requests go out through node:http, not fetch, so paths and headers reach the server
// exactly as written (fetch would normalise `/../` and refuse some headers).
// This file imports vitest, so it is exported on its own ("./hostile-input" in
// package.json), never from src/index.ts.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../src/app.ts';
import { MAX_PRODUCTS_PER_EXPORT } from '../src/schemas.ts';

export interface RunningApi {
  url: string;
  close(): Promise<unknown>;
}

export interface KnownRoute {
  /** A concrete path (no `:id` pattern): the battery sends requests to it. */
  path: string;
  /** The methods the route answers; HEAD comes with GET. Every other method must get 405. */
  allow: string[];
}

export interface HostileInputTarget {
  /** Starts the API on a free port; `log` must receive every line the API logs. */
  start(log: (line: string) => void): Promise<RunningApi>;
  /** Routes that take an export request body ({"product_ids": [...]}). @defaultValue ['/exports'] */
  submitPaths?: string[];
  /** Routes whose wrong methods are tried. @defaultValue lesson 01's routes (LESSON_01_ROUTES) */
  routes?: KnownRoute[];
}

/** Well-formed (a UUID) but never handed out. */
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

export const LESSON_01_ROUTES: KnownRoute[] = [
  { path: '/exports', allow: ['POST'] },
  { path: `/exports/${UNKNOWN_ID}`, allow: ['GET', 'HEAD'] },
  { path: '/openapi.json', allow: ['GET', 'HEAD'] },
  { path: '/docs/', allow: ['GET', 'HEAD'] },
];

const TRIED_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: unknown;
}

interface RawRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** How long one request may take before the battery calls it a hang. */
const ANSWER_TIMEOUT_MS = 10_000;

/** One HTTP request with the path and headers exactly as given. Never throws on a status. */
export function sendRaw(baseUrl: string, path: string, request: RawRequest = {}): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  const method = request.method ?? 'GET';
  // Said outright: for OPTIONS or DELETE node:http would send a body with no length at all,
  // and the server would read it as the start of the next request.
  const length = request.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(request.body)) };
  const headers = { ...length, ...request.headers };
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path, headers, timeout: ANSWER_TIMEOUT_MS }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within ${ANSWER_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(request.body);
  });
}

const JSON_TYPE = { 'content-type': 'application/json' };

/** A client error as the API promises it: 4xx, a JSON body with a code and a sentence. */
function expectClientError(answer: RawAnswer, what: string, statuses: number[]): void {
  expect(statuses, `${what}: answered ${answer.status} ${answer.text.slice(0, 160)}`).toContain(answer.status);
  expectJsonAnswer(answer, what);
  const body = answer.json as { error?: unknown; message?: unknown };
  expect(typeof body.error, `${what}: error code`).toBe('string');
  expect(typeof body.message === 'string' && body.message.length > 0, `${what}: message`).toBe(true);
}

function expectJsonAnswer(answer: RawAnswer, what: string): void {
  expect(answer.headers['content-type'], `${what}: content-type`).toMatch(/^application\/json/);
  expect(answer.json, `${what}: the body is not JSON: ${answer.text.slice(0, 160)}`).not.toBeUndefined();
}

export function describeHostileInputBattery(name: string, target: HostileInputTarget): void {
  const submitPaths = target.submitPaths ?? ['/exports'];
  const routes = target.routes ?? LESSON_01_ROUTES;

  describe(`hostile input: ${name}`, () => {
    const logged: string[] = [];
    let api: RunningApi;
    const send = (path: string, request?: RawRequest) => sendRaw(api.url, path, request);
    const postBody = (path: string, body: string | Buffer, headers: Record<string, string> = JSON_TYPE) =>
      send(path, { method: 'POST', headers, body });

    beforeAll(async () => {
      api = await target.start((line) => logged.push(line));
    });
    afterAll(() => api?.close());
    // Whatever a test provoked, the log stays readable: one short line per event, no stack.
    let logStart = 0;
    beforeEach(() => {
      logStart = logged.length;
    });
    const linesSinceTestStart = () => logged.slice(logStart);
    function expectShortLogLines(): void {
      for (const line of linesSinceTestStart()) {
        expect(line, 'a log line spans several lines').not.toMatch(/[\r\n]/);
        expect(line, 'a log line holds a stack trace').not.toMatch(/\bat .+:\d+:\d+/);
        expect(line.length, `a log line is ${line.length} characters long`).toBeLessThanOrEqual(300);
      }
    }

    it('When a path holds a percent-encoding that does not decode, Then the answer is 400 JSON and one short log line [test:hostile-bad-percent-encoding]', async () => {
      for (const path of ['/exports/%ff', '/exports/%E0%A4%A', '/exports/%', '/exports/abc%zz']) {
        expectClientError(await send(path), `GET ${path}`, [400]);
      }
      const lines = linesSinceTestStart();
      expect(
        lines.some((line) => line.includes('400') && line.includes('/exports/%ff')),
        `log: ${lines.join(' | ')}`,
      ).toBe(true);
      expectShortLogLines();
    });

    it('When a body does not decode as its Content-Encoding says, Then the answer is 400 or 415 JSON, never a 500 [test:hostile-bad-content-encoding]', async () => {
      const plain = JSON.stringify({ product_ids: [1] });
      for (const path of submitPaths) {
        for (const encoding of ['gzip', 'deflate', 'br', 'x-unknown', 'gzip, x-unknown']) {
          const answer = await postBody(path, plain, { ...JSON_TYPE, 'content-encoding': encoding });
          expectClientError(answer, `POST ${path} with plain bytes as ${encoding}`, [400, 415]);
        }
        const cut = gzipSync(plain).subarray(0, 12); // a gzip stream that ends half-way
        expectClientError(
          await postBody(path, cut, { ...JSON_TYPE, 'content-encoding': 'gzip' }),
          `POST ${path} with a cut gzip`,
          [400, 415],
        );
      }
      expectShortLogLines();
    });

    it('When a body is too big, plainly or once decompressed, Then the answer is 413 JSON [test:hostile-oversize]', async () => {
      const huge = `{"product_ids": [${'1,'.repeat(MAX_BODY_BYTES)}1]}`;
      for (const path of submitPaths) {
        expectClientError(await postBody(path, huge), `POST ${path} with ${huge.length} bytes`, [413]);
        // A few hundred bytes on the wire that inflate far past the limit.
        const bomb = gzipSync(huge);
        expectClientError(
          await postBody(path, bomb, { ...JSON_TYPE, 'content-encoding': 'gzip' }),
          `POST ${path} gzip bomb`,
          [413],
        );
        const deflated = deflateSync(huge);
        expectClientError(
          await postBody(path, deflated, { ...JSON_TYPE, 'content-encoding': 'deflate' }),
          `POST ${path} deflate bomb`,
          [413],
        );
      }
      expectShortLogLines();
    });

    it('When the body is empty or a JSON value that is not an object, Then the message names that problem [test:hostile-empty-or-null-body]', async () => {
      for (const path of submitPaths) {
        // Empty as announced (Content-Length: 0), and empty only once decompressed.
        for (const [what, body, headers] of [
          ['an empty body', '', JSON_TYPE],
          ['a gzip of nothing', gzipSync(''), { ...JSON_TYPE, 'content-encoding': 'gzip' }],
        ] as const) {
          const empty = await postBody(path, body, headers);
          expectClientError(empty, `POST ${path} with ${what}`, [400]);
          expect((empty.json as { message: string }).message, `POST ${path} with ${what}`).toMatch(/body is empty/i);
        }
        for (const [body, kind] of [
          ['null', 'null'],
          ['[1, 2]', 'an array'],
          ['42', 'a number'],
          ['"export"', 'a string'],
          ['true', 'a boolean'],
        ]) {
          const answer = await postBody(path, body!);
          expectClientError(answer, `POST ${path} with ${body}`, [400, 422]);
          expect((answer.json as { message: string }).message, `POST ${path} with ${body}`).toContain(
            `must be a JSON object, got ${kind}`,
          );
        }
      }
      expectShortLogLines();
    });

    it('When fields have the wrong types or shapes, Then each answer is 4xx JSON and nothing leaks into Object.prototype [test:hostile-wrong-types]', async () => {
      const deep = `{"product_ids": ${'['.repeat(3000)}1${']'.repeat(3000)}}`;
      const bodies = [
        '{"product_ids": "1,2"}',
        '{"product_ids": {"0": 1}}',
        '{"product_ids": [[1], [2]]}',
        '{"product_ids": [1e400]}',
        '{"product_ids": [9007199254740993]}',
        '{"product_ids": [-0]}',
        '{"product_ids": [null]}',
        '{"product_ids": [true]}',
        '{"product_ids": [1], "__proto__": {"polluted": true}}',
        '{"product_ids": [1], "constructor": {"prototype": {"polluted": true}}}',
        '{"product_ids": [1], "product_ids": "again"}',
        deep,
        '{"product_ids": [1, 2',
        '\u0000\u0001',
      ];
      for (const path of submitPaths) {
        for (const body of bodies) {
          expectClientError(await postBody(path, body), `POST ${path} ${body.slice(0, 40)}`, [400, 413, 415, 422]);
        }
        expectClientError(
          await postBody(path, '{"product_ids": [1]}', { 'content-type': 'text/plain' }),
          `POST ${path} as text/plain`,
          [415],
        );
        expectClientError(
          await postBody(path, '{"product_ids": [1]}', { 'content-type': 'application/json; charset=utf-7' }),
          `POST ${path} as utf-7`,
          [415],
        );
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expectShortLogLines();
    });

    it('When a job id tries to climb out of its folder or carries control bytes, Then the answer is 400 or 404 JSON [test:hostile-path-traversal]', async () => {
      const paths = [
        '/exports/..%2f..%2fetc',
        '/exports/..%2f..%2fetc%2fpasswd',
        '/exports/%2e%2e%2f%2e%2e%2fetc',
        '/exports/..%5c..%5cwindows',
        '/exports/../../etc/passwd',
        `/exports/${UNKNOWN_ID}%00`,
        '/exports/%0aforged%20log%20line',
        `/exports/${'a'.repeat(4000)}`,
      ];
      for (const path of paths) expectClientError(await send(path), `GET ${path.slice(0, 60)}`, [400, 404]);
      expectShortLogLines();
    });

    it('When a known path gets a method it does not take, Then the answer is 405 JSON with an Allow header [test:hostile-wrong-method]', async () => {
      for (const route of routes) {
        for (const method of TRIED_METHODS.filter((m) => !route.allow.includes(m))) {
          const answer = await send(route.path, {
            method,
            headers: JSON_TYPE,
            body: method === 'GET' ? undefined : '{}',
          });
          expectClientError(answer, `${method} ${route.path}`, [405]);
          const allow = String(answer.headers.allow ?? '')
            .split(/,\s*/)
            .filter(Boolean)
            .sort();
          expect(allow, `${method} ${route.path}: Allow header`).toEqual([...route.allow].sort());
        }
      }
      expectShortLogLines();
    });

    it('When a path is unknown, under /docs or elsewhere, Then the answer is a JSON 404 [test:hostile-unknown-path]', async () => {
      for (const path of [
        '/docs/nope',
        '/docs/nope.js',
        '/docs/package.json',
        '/docs/%ff',
        '/nowhere',
        '/exports/a/b',
      ]) {
        expectClientError(await send(path), `GET ${path}`, [400, 404]);
      }
      expectShortLogLines();
    });

    it('When the same product id is sent twice, Then it is kept once, in first-seen order, and the 1-100 limit counts distinct ids [test:hostile-duplicate-ids]', async () => {
      for (const path of submitPaths) {
        const twice = await postBody(path, JSON.stringify({ product_ids: [2, 1, 2, 1] }));
        expect(twice.status).toBe(202);
        expect((twice.json as { product_ids: number[] }).product_ids).toEqual([2, 1]);

        const distinct = Array.from({ length: MAX_PRODUCTS_PER_EXPORT }, (_, i) => i + 1);
        const withRepeats = await postBody(
          path,
          JSON.stringify({ product_ids: [...distinct, ...distinct.slice(0, 50)] }),
        );
        expect(withRepeats.status, `${MAX_PRODUCTS_PER_EXPORT + 50} ids, ${MAX_PRODUCTS_PER_EXPORT} distinct`).toBe(
          202,
        );
        expect((withRepeats.json as { product_ids: number[] }).product_ids).toEqual(distinct);

        const tooMany = await postBody(
          path,
          JSON.stringify({ product_ids: [...distinct, MAX_PRODUCTS_PER_EXPORT + 1, 1] }),
        );
        expectClientError(tooMany, `${MAX_PRODUCTS_PER_EXPORT + 1} distinct ids`, [422]);
      }
    });

    it('When 200 small requests arrive at once, Then every one is answered, none with a 5xx, all with JSON [test:hostile-flood]', async () => {
      const good = JSON.stringify({ product_ids: [1, 2] });
      const requests = Array.from({ length: 200 }, (_, i) => {
        const path = submitPaths[i % submitPaths.length]!;
        switch (i % 4) {
          case 0:
            return { what: `POST ${path}`, answer: postBody(path, good) };
          case 1:
            return { what: `POST ${path} bad body`, answer: postBody(path, '{"product_ids": [') };
          case 2:
            return { what: 'GET unknown id', answer: send(`/exports/${UNKNOWN_ID}`) };
          default:
            return { what: 'GET %ff', answer: send('/exports/%ff') };
        }
      });
      const answers = await Promise.all(requests.map(async ({ what, answer }) => ({ what, answer: await answer })));
      expect(answers).toHaveLength(200);
      for (const { what, answer } of answers) {
        expect(answer.status, `${what}: ${answer.text.slice(0, 120)}`).toBeLessThan(500);
        expectJsonAnswer(answer, what);
      }
      expect(answers.filter(({ answer }) => answer.status === 202)).toHaveLength(50);
      expectShortLogLines();
    });
  });
}
