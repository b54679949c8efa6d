// The load generator of `pnpm bench:pipeline`, in its own process so that its CPU is its own
// and can be reported: everything (the load, the API, the publisher, the workers, MySQL and
// Redis) shares the same two cores, and a load generator that eats one of them is part of
// what the figures mean.
//
//   node --import tsx scripts/bench-load.ts --url <api url> --seconds S --products 1,2,3 [--bulk-every N]
//        (--clients C | --rate R)
//
// Two ways to load, as the field measures:
//   closed  --clients C: C clients each POST /exports, wait for the answer and post again at
//           once, until the time is up. What the server sustains at saturation: a 503 is
//           counted as refused and not retried (the client's next request is a new submission).
//   open    --rate R: requests sent at R per second on a fixed schedule whatever the answers
//           (up to 64 at once on kept-alive connections; more wait for a connection, and that wait
//           counts). Each answer is timed from when it was due, not from when it went out, so a
//           slow server cannot hide its queue (see bench-latency.ts).
// With --bulk-every N, every N-th request asks for products 1 to 40 instead: a bulk export.
//
// Plain node:http with a kept-alive agent, not fetch: fetch (undici) cost about 2.5 ms of CPU per
// request here, as much as the API's own work; a request this way costs a fraction of that.
// Prints a ready line, then one JSON line (LOAD {...}) with what it sent and saw, then exits.
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { runMain } from '@tasks-lab/lab-kit';
import {
  latencyHistogram,
  type LatencySummary,
  plannedAt,
  plannedCount,
  recordMs,
  summarizeLatency,
} from './bench-latency.ts';

export interface LoadReport {
  mode: 'closed' | 'open';
  /** Closed: the clients. Open: the most requests in flight at once. */
  clients: number;
  /** Open loop only: the planned rate. */
  offeredPerSecond?: number;
  seconds: number;
  accepted: number;
  refused: number;
  failed: number;
  /** Every answer (202, 503 or error), submit to answer; open loop: from when it was due. */
  answerMs: LatencySummary;
  /**
   * Open loop only: each accepted job (its id, from the 202's Location) and when its request was
   * due, in ms since the epoch: the harness times submit -> succeeded from the client's side.
   */
  dueAt?: [jobId: string, dueEpochMs: number][];
  /** The process's CPU time (user + system) over its wall time while loading: 1.0 = one full core. */
  cpuCores: number;
}

/** Products 1 to 40: more than the fast route's 30 rows. */
export const BULK_BODY = JSON.stringify({ product_ids: Array.from({ length: 40 }, (_, i) => i + 1) });

/** The open loop's most requests in flight (kept-alive connections). */
export const OPEN_LOOP_CONNECTIONS = 64;

interface Counts {
  accepted: number;
  refused: number;
  failed: number;
}

interface Answer {
  /** 0: no answer. */
  status: number;
  /** The job the 202 names (its Location), if any. */
  jobId?: string;
}

/** One POST /exports; resolves with the status and the job a 202 names. Never rejects. */
function post(agent: Agent, url: URL, body: string): Promise<Answer> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: '/exports',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume(); // read the answer through, so the connection is reused
        const jobId = /\/exports\/([^/]+)$/.exec(String(res.headers.location ?? ''))?.[1];
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ...(jobId ? { jobId } : {}) }));
        res.on('error', () => resolve({ status: 0 }));
      },
    );
    req.on('error', () => resolve({ status: 0 }));
    req.end(body);
  });
}

function count(counts: Counts, status: number): void {
  if (status === 202) counts.accepted += 1;
  else if (status === 503) counts.refused += 1;
  else counts.failed += 1;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      seconds: { type: 'string' },
      products: { type: 'string' },
      'bulk-every': { type: 'string', default: '0' },
      clients: { type: 'string' },
      rate: { type: 'string' },
    },
  });
  const url = new URL(values.url ?? '');
  const seconds = Number(values.seconds);
  const productIds = String(values.products).split(',').map(Number);
  const bulkEvery = Number(values['bulk-every']);
  const clients = values.clients === undefined ? undefined : Number(values.clients);
  const rate = values.rate === undefined ? undefined : Number(values.rate);
  if (
    !(seconds > 0) ||
    productIds.some((id) => !Number.isInteger(id)) ||
    !Number.isInteger(bulkEvery) ||
    bulkEvery < 0 ||
    (clients === undefined) === (rate === undefined) ||
    (clients !== undefined && !(Number.isInteger(clients) && clients >= 1)) ||
    (rate !== undefined && !(rate > 0))
  ) {
    throw new Error(
      'usage: bench-load.ts --url <api url> --seconds S --products 1,2,3 [--bulk-every N] (--clients C | --rate R)',
    );
  }
  const connections = clients ?? OPEN_LOOP_CONNECTIONS;
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const body = JSON.stringify({ product_ids: productIds });
  let sent = 0;
  const bodyOf = () => (bulkEvery > 0 && ++sent % bulkEvery === 0 ? BULK_BODY : body);
  const counts: Counts = { accepted: 0, refused: 0, failed: 0 };
  const answers = latencyHistogram();
  const dueAt: [string, number][] = [];
  console.log(`load generator ${process.pid} ready`);

  const startCpu = process.cpuUsage();
  const started = performance.now();
  if (rate === undefined) {
    const until = started + seconds * 1000;
    const client = async () => {
      while (performance.now() < until) {
        const at = performance.now();
        count(counts, (await post(agent, url, bodyOf())).status);
        recordMs(answers, performance.now() - at);
      }
    };
    await Promise.all(Array.from({ length: connections }, client));
  } else {
    const inFlight: Promise<void>[] = [];
    for (let i = 0; i < plannedCount(rate, seconds); i += 1) {
      const due = started + plannedAt(i, rate);
      const early = due - performance.now();
      if (early >= 1) await sleep(early);
      inFlight.push(
        post(agent, url, bodyOf()).then((answer) => {
          count(counts, answer.status);
          recordMs(answers, performance.now() - due);
          if (answer.status === 202 && answer.jobId) dueAt.push([answer.jobId, performance.timeOrigin + due]);
        }),
      );
    }
    await Promise.all(inFlight);
  }
  const cpu = process.cpuUsage(startCpu);
  const report: LoadReport = {
    mode: rate === undefined ? 'closed' : 'open',
    clients: connections,
    ...(rate === undefined ? {} : { offeredPerSecond: rate }),
    seconds,
    ...counts,
    answerMs: summarizeLatency(answers),
    ...(rate === undefined ? {} : { dueAt }),
    cpuCores: (cpu.user + cpu.system) / 1000 / (performance.now() - started),
  };
  agent.destroy();
  console.log(`LOAD ${JSON.stringify(report)}`);
}

runMain(import.meta.url, main);
