// The dashboard as a hostile client meets it: broken percent-encodings, path traversal,
// wrong methods, every write route Bull Board knows, bodies and headers that are too big,
// and a bounded flood. The server is the real `pnpm start` process. Whatever it is sent,
// it answers 4xx (never 5xx), with JSON and no stack trace, logs one short line, stays
// up, and changes nothing in the queue: it is read-only.
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { sampleMessage } from '@tasks-lab/07-choosing-executors';
import { appRoutes } from '@bull-board/api/dist/routes.js';
import { countLeakedSecrets } from '@tasks-lab/infra';
import { launchProcess, type LabProcess } from '@tasks-lab/lab-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAB_DIR } from '../src/artifacts.ts';
import { exportsAddress } from '../src/broker.ts';
import { exportHandlers, startExportWorker } from '../src/export-worker.ts';
import { enqueueExport, type ExportsQueue } from '../src/producer.ts';
import { enqueue, openQueue, waitForFinalState } from '../src/queue-layer.ts';
import { obliterateQueues, uniqueQueueName } from './queues.ts';

const queueName = uniqueQueueName('hostile');
const artifactsDir = mkdtempSync(join(tmpdir(), 'lab08-hostile-'));
let queue: ExportsQueue;
let server: LabProcess;
let base: URL;
const jobIds: string[] = [];

beforeAll(async () => {
  queue = await openQueue(exportsAddress(queueName));
  // One failed job (a message that skipped the contract), one waiting and one delayed by an hour.
  const worker = startExportWorker({ queueName, handlers: exportHandlers({ artifactsDir }) });
  const careless = await openQueue<unknown, unknown, string>(exportsAddress(queueName));
  try {
    const bad = await enqueue(
      careless,
      'products.export',
      { ...sampleMessage(1), password: 'x' },
      { jobId: randomUUID() },
    );
    await waitForFinalState(careless, bad.id ?? '', { timeoutMs: 30_000 });
    await worker.close();
    const waiting = await enqueueExport(queue, sampleMessage(1));
    const delayed = await enqueue(careless, 'products.export', sampleMessage(2), {
      jobId: randomUUID(),
      jobOptions: { delay: 3_600_000 },
    });
    jobIds.push(bad.id ?? '', waiting.id ?? '', delayed.id ?? '');
  } finally {
    await careless.close();
    await worker.close();
  }

  server = await launchProcess('src/server.ts', {
    cwd: LAB_DIR,
    env: { PORT: '0', EXPORTS_QUEUE: queueName },
    ready: /dashboard on (http:\/\/127\.0\.0\.1:\d+)/,
  });
  const [, url = ''] = await server.waitForOutput(/dashboard on (http:\/\/127\.0\.0\.1:\d+)/);
  base = new URL(url);
}, 60_000);
afterAll(async () => {
  await server?.kill('SIGKILL');
  await queue?.close();
  await obliterateQueues([queueName]);
  rmSync(artifactsDir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  type: string;
  allow: string;
  body: string;
}

/** One raw request: the path is sent exactly as written (fetch would normalise `..` and `%2e`). */
function send(
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: Buffer } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: base.hostname, port: base.port, method, path, headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: res.headers['content-type'] ?? '',
          allow: String(res.headers.allow ?? ''),
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${path.slice(0, 60)}: no answer within 10 s`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** What a refusal must look like: a client error, JSON (except Node's own 431), no stack, no password. */
function expectCleanRefusal(what: string, answer: Answer): void {
  expect(answer.status, `${what} -> ${answer.status} ${answer.body.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
  expect(answer.status, `${what} -> ${answer.status} ${answer.body.slice(0, 200)}`).toBeLessThan(500);
  if (answer.status !== 431) expect(answer.type, what).toMatch(/^application\/json/);
  expect(answer.body, what).not.toMatch(/\n\s+at |URIError|node_modules/);
  expect(countLeakedSecrets(answer.body), what).toBe(0);
}

/** Everything a write could change: counts, paused, and each job's state, data, priority and delay. */
async function queueSnapshot() {
  const jobs = [];
  for (const id of jobIds) {
    const job = await queue.getJob(id);
    jobs.push({
      id,
      state: await queue.getJobState(id),
      data: job?.data,
      priority: job?.opts.priority,
      delay: job?.delay,
    });
  }
  return {
    counts: await queue.getJobCounts(),
    paused: await queue.isPaused(),
    jobs,
    concurrency: await queue.getGlobalConcurrency(),
  };
}

const q = () => queueName;
const hostilePaths = (): Array<[string, string]> => [
  ['GET', '/admin/queues/%ff'],
  ['GET', '/%ff'],
  ['GET', '/admin/queues/queue/%ff'],
  ['GET', `/admin/queues/queue/${q()}/%E0%A4%A`],
  ['GET', `/admin/queues/api/queues/${q()}/%ff`],
  ['GET', '/admin/queues/static/../../package.json'],
  ['GET', '/admin/queues/static/%2e%2e/%2e%2e/package.json'],
  ['GET', '/admin/queues/static/..%2f..%2f..%2fpackage.json'],
  ['GET', '/admin/queues/static/..%5c..%5cpackage.json'],
  ['GET', '/admin/queues/../../../../etc/passwd'],
  ['GET', `/admin/queues/api/queues/${q()}/..%2f..%2f..%2fetc%2fpasswd`],
  ['GET', '/nope'],
  ['GET', '/admin/queues/api/nope'],
  ['GET', '/admin/queues/api/queues/no-such-queue/some-job'],
  ['GET', `/admin/queues/api/queues/${q()}/no-such-job`],
  ['GET', `/admin/queues/api/queues/${q()}/${'x'.repeat(5000)}`],
  ['GET', `/admin/queues/api/queues?activeQueue=${q()}&status=waiting&page=99999999999999999999&jobsPerPage=10`],
  ['GET', `/admin/queues/api/queues?activeQueue=${q()}&status=waiting&page=1&jobsPerPage=1000000000`],
  ['GET', '/admin/queues/api/queues?page=-1'],
  ['GET', '/admin/queues/api/queues?page=abc'],
  ['GET', '/admin/queues/api/queues?status=zzz'],
];

describe('the dashboard under hostile input', () => {
  it('When it gets broken encodings, traversal, unknown paths and bad query values, Then each is a 4xx JSON answer with no stack and no file content [test:dashboard-hostile-paths-4xx]', async () => {
    for (const [method, path] of hostilePaths()) {
      const answer = await send(method, path);
      expectCleanRefusal(`${method} ${path.slice(0, 80)}`, answer);
      expect(answer.body).not.toMatch(/"name":\s*"@tasks-lab|root:x:0:0/);
    }
  });

  it('When a page is asked for with a method it does not serve, Then it answers 405 with Allow: GET, HEAD [test:dashboard-wrong-method-405]', async () => {
    for (const [method, path] of [
      ['POST', '/admin/queues'],
      ['DELETE', '/admin/queues'],
      ['PATCH', '/'],
      ['PUT', '/admin/queues/api/queues'],
      ['DELETE', `/admin/queues/api/queues/${q()}/${jobIds[1]}`],
    ] as const) {
      const answer = await send(method, path);
      expectCleanRefusal(`${method} ${path}`, answer);
      expect(answer.status, `${method} ${path}`).toBe(405);
      expect(answer.allow, `${method} ${path}`).toBe('GET, HEAD');
    }
  });

  it('When every write route Bull Board has is called on every job and status, Then each is refused and the queue is exactly as before [test:dashboard-stays-read-only]', async () => {
    const before = await queueSnapshot();
    const json = { 'content-type': 'application/json' };
    let tried = 0;
    for (const route of appRoutes.api) {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      const paths = Array.isArray(route.route) ? route.route : [route.route];
      for (const method of methods.filter((m) => m !== 'get')) {
        for (const path of paths) {
          for (const jobId of jobIds) {
            for (const status of ['failed', 'completed', 'delayed', 'waiting']) {
              const concrete = path
                .replace(':queueName', q())
                .replace(':jobId', jobId)
                .replace(':queueStatus', status)
                .replace(':schedulerId', 'any');
              const body = Buffer.from(
                JSON.stringify({
                  name: 'products.export',
                  data: sampleMessage(1),
                  jobData: {},
                  priority: 1,
                  runAt: Date.now(),
                  concurrency: 1,
                  max: 1,
                  duration: 1000,
                  force: true,
                }),
              );
              expectCleanRefusal(
                `${method.toUpperCase()} ${concrete}`,
                await send(method.toUpperCase(), `/admin/queues${concrete}`, { headers: json, body }),
              );
              tried += 1;
            }
          }
        }
      }
    }
    expect(tried).toBeGreaterThan(50);
    expect(await queueSnapshot()).toEqual(before);
    expect(before.jobs.map((job) => job.state)).toEqual(['failed', 'waiting', 'delayed']);
  });

  it('When the body, the URL or a header is too big, or a body does not decode, Then it answers 4xx and keeps serving [test:dashboard-oversize-4xx]', async () => {
    const add = `/admin/queues/api/queues/${q()}/add`;
    const cases: Array<[string, Answer]> = [
      [
        '2 MB JSON body',
        await send('POST', add, {
          headers: { 'content-type': 'application/json' },
          body: Buffer.alloc(2_000_000, 'a'),
        }),
      ],
      [
        'gzip header, plain body',
        await send('POST', add, {
          headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
          body: Buffer.from('not gzip'),
        }),
      ],
      [
        'broken JSON',
        await send('POST', add, { headers: { 'content-type': 'application/json' }, body: Buffer.from('{bad json') }),
      ],
      ['20 kB URL', await send('GET', `/admin/queues/${'a'.repeat(20_000)}`)],
      ['20 kB header', await send('GET', '/admin/queues', { headers: { 'x-big': 'a'.repeat(20_000) } })],
    ];
    for (const [what, answer] of cases) expectCleanRefusal(what, answer);
    expect((await send('GET', '/admin/queues/api/queues')).status).toBe(200);
  });

  it('When 400 requests arrive 40 at a time, good and bad mixed, Then none gets a 5xx, all are answered within 30 s, and the server still serves [test:dashboard-flood-bounded]', {
    timeout: 60_000,
  }, async () => {
    const paths = [
      '/admin/queues/api/queues',
      '/admin/queues/%ff',
      `/admin/queues/api/queues/${q()}/${jobIds[1]}`,
      '/admin/queues/queue/%ff',
    ];
    const statuses: number[] = [];
    const started = Date.now();
    for (let round = 0; round < 10; round += 1) {
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) => send('GET', paths[i % paths.length] ?? '/')),
      );
      statuses.push(...answers.map((answer) => answer.status));
    }
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(statuses).toHaveLength(400);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    expect((await send('GET', '/admin/queues/api/queues')).status).toBe(200);
  });

  it('When all of that is over, Then the process is still running and logged each malformed request in one short line, no stack trace [test:dashboard-logs-short-lines]', async () => {
    expect(server.output()).not.toMatch(/\n\s+at |URIError:|node_modules/);
    const refusals = server
      .output()
      .split('\n')
      .filter((line) => /^dashboard: \d{3} /.test(line));
    expect(refusals.length).toBeGreaterThan(10);
    for (const line of refusals) expect(line.length).toBeLessThan(300);
    expect((await send('GET', '/admin/queues')).status).toBe(200);
  });
});
