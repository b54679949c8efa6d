// The benchmark's latency figures and round-trip counts (scripts/bench-latency.ts and the pure parts
// of scripts/bench-pipeline.ts), and the open-loop load generator against a small local server.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startTsProcess } from '@tasks-lab/lab-kit';
import { latencyOf, plannedAt, plannedCount } from '../scripts/bench-latency.ts';
import type { LoadReport } from '../scripts/bench-load.ts';
import {
  formVariants,
  formsInRound,
  redisCommandsOf,
  redisScriptsOf,
  roundTripsPerExport,
} from '../scripts/bench-pipeline.ts';

describe('latency from an HDR histogram', () => {
  it('When 1 to 1000 ms are recorded, Then the percentiles are theirs to three significant digits [test:bench-hdr-percentiles]', () => {
    const summary = latencyOf(Array.from({ length: 1000 }, (_, i) => i + 1));
    expect(summary.count).toBe(1000);
    expect(summary.p50).toBeCloseTo(500, -0.5); // within 0.1 %: 500 ± 0.5
    expect(summary.p90).toBeCloseTo(900, -0.5);
    expect(summary.p99).toBeCloseTo(990, -0.5);
    expect(summary.p999).toBeCloseTo(999, -0.5);
    expect(summary.max).toBeCloseTo(1000, -0.5);
  });

  it('When nothing is recorded, Then every figure is NaN, not 0 [test:bench-hdr-empty]', () => {
    const summary = latencyOf([]);
    expect(summary.count).toBe(0);
    expect(summary.p99).toBeNaN();
    expect(summary.max).toBeNaN();
  });

  it('When an open loop is planned, Then its requests are evenly spaced at the rate [test:bench-open-schedule]', () => {
    expect([0, 1, 2, 200].map((i) => plannedAt(i, 200))).toEqual([0, 5, 10, 1000]);
    expect(plannedCount(150, 2)).toBe(300);
    expect(plannedCount(0.1, 1)).toBe(1);
  });
});

describe('round trips per export', () => {
  it("When two readings are compared, Then the harness's own statements and commands are taken off [test:bench-round-trips-own]", () => {
    const before = { statements: 1000, transactions: 100, rollbacks: 5, redisCommands: 4000, redisScripts: 50 };
    const after = { statements: 2210, transactions: 300, rollbacks: 15, redisCommands: 5002, redisScripts: 290 };
    expect(roundTripsPerExport(before, after, 100, { statements: 10, redisCommands: 2 })).toEqual({
      statements: 12,
      transactions: 2,
      rollbacks: 0.1,
      redisCommands: 10,
      redisScripts: 2.4,
    });
  });

  it("When Redis's INFO is read, Then the commands processed and the script calls are found, and a reply without the count is refused [test:bench-redis-commands]", () => {
    expect(redisCommandsOf('# Stats\r\ntotal_connections_received:9\r\ntotal_commands_processed:12345\r\n')).toBe(
      12345,
    );
    expect(() => redisCommandsOf('# Stats\r\n')).toThrow(/total_commands_processed/);
    const stats =
      '# Commandstats\r\ncmdstat_evalsha:calls=120,usec=9\r\ncmdstat_eval:calls=3,usec=1\r\ncmdstat_get:calls=7,usec=1\r\n';
    expect(redisScriptsOf(stats)).toBe(123);
  });

  it("When the forms pass is planned, Then it runs the defaults, each change alone, and all of the course's forms together [test:bench-form-variants]", () => {
    const variants = formVariants();
    expect(variants[0]).toEqual({ name: 'the defaults', env: {} });
    expect(variants.at(-1)!.env).toEqual({
      DB_QUERY_STACK_TRACES: 'on',
      ADMISSION_EARLY_REFUSAL: 'off',
      FINISH_FORM: 'transaction',
      CLAIM_FORM: 'three-step',
      OUTBOX_CONFIRM_FORM: 'per-event',
      ADMISSION_GROUP_MAX: '1',
    });
    expect(variants.slice(1, -1).every((v) => Object.keys(v.env).length === 1)).toBe(true);
  });

  it('When the forms pass runs its rounds, Then the order alternates (ABBA): each variant takes the first and the last place in turn [test:bench-forms-abba]', () => {
    const names = (round: number) => formsInRound(round).map((v) => v.name);
    expect(names(1)).toEqual(formVariants().map((v) => v.name));
    expect(names(2)).toEqual([...names(1)].reverse());
    expect(names(3)).toEqual(names(1));
  });
});

describe('the open-loop load generator', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  /** A server that answers every POST after `holdMs`, 202 or (every third) 503. */
  async function slowServer(holdMs: number): Promise<string> {
    let n = 0;
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        n += 1;
        const status = n % 3 === 0 ? 503 : 202;
        const location = status === 202 ? { location: `/exports/job-${n}` } : {};
        setTimeout(() => res.writeHead(status, { 'content-type': 'application/json', ...location }).end('{}'), holdMs);
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('When requests are sent at a rate, Then it sends them all whatever the answers, counts the 503s apart and times each from when it was due [test:bench-open-loop-generator]', async () => {
    const url = await slowServer(150);
    const load = startTsProcess(fileURLToPath(new URL('../scripts/bench-load.ts', import.meta.url)), {
      args: ['--url', url, '--seconds', '1', '--products', '1,2,3', '--rate', '40'],
    });
    await load.exited;
    const report = JSON.parse(/LOAD (\{.*\})/.exec(load.output())![1]!) as LoadReport;
    expect(report).toMatchObject({ mode: 'open', offeredPerSecond: 40, accepted: 27, refused: 13, failed: 0 });
    // Each 202 names its job (the Location) with when its request was due, 25 ms apart at 40/s.
    expect(report.dueAt).toHaveLength(27);
    const [first, second] = [...report.dueAt!].sort((a, b) => a[1] - b[1]);
    expect(first![0]).toMatch(/^job-\d+$/);
    expect(second![1] - first![1]).toBeGreaterThanOrEqual(24);
    expect(report.answerMs.count).toBe(40);
    // Every answer waited for the server's 150 ms hold: a closed loop of few clients would have
    // sent fewer requests instead.
    expect(report.answerMs.p50).toBeGreaterThanOrEqual(150);
  }, 30_000);

  it('When it is given neither clients nor a rate, Then it refuses with its usage [test:bench-load-usage]', async () => {
    const load = startTsProcess(fileURLToPath(new URL('../scripts/bench-load.ts', import.meta.url)), {
      args: ['--url', 'http://127.0.0.1:1', '--seconds', '1', '--products', '1'],
    });
    const exit = await load.exited;
    expect(exit).not.toMatchObject({ code: 0 });
    expect(load.output()).toMatch(/usage: bench-load\.ts/);
  }, 30_000);
});
