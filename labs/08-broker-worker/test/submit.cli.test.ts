// `pnpm submit` as a student runs it: a child process on a queue of its own, with no
// worker (so every wait runs out, and how long it took says whether it really waited).
import { startTsProcess } from '@tasks-lab/lab-kit';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAB_DIR } from '../src/artifacts.ts';
import { exportsAddress } from '../src/broker.ts';
import type { ExportsQueue } from '../src/producer.ts';
import { openQueue } from '../src/queue-layer.ts';
import { obliterateQueues, uniqueQueueName } from './queues.ts';

const queueName = uniqueQueueName('submit-cli');
let queue: ExportsQueue;

beforeAll(async () => {
  queue = await openQueue(exportsAddress(queueName));
});
afterAll(async () => {
  await queue?.close();
  await obliterateQueues([queueName]);
});

/** Runs src/submit.ts to its end; returns its exit code, everything it printed and how long it ran. */
async function submit(args: string[]) {
  const started = Date.now();
  const cli = startTsProcess('src/submit.ts', { cwd: LAB_DIR, args, env: { EXPORTS_QUEUE: queueName } });
  const exit = await cli.exited;
  return { code: exit.code, output: cli.output(), ms: Date.now() - started };
}

describe('the submit CLI', () => {
  it('When --timeout-s 2 is given and no worker runs, Then it really waits 2 s, says "no result within 2 s" and exits 3 [test:submit-wait-really-waits]', {
    timeout: 60_000,
  }, async () => {
    const run = await submit(['--timeout-s', '2']);
    expect(run.code).toBe(3);
    expect(run.output).toMatch(/no result within 2 s; the job is still waiting/);
    const id = /submitted (\S+)/.exec(run.output)?.[1] ?? '';
    expect(await queue.getJobState(id)).toBe('waiting');
    // Measured from the child's start, which includes its start-up: at least the wait.
    expect(run.ms).toBeGreaterThanOrEqual(2000);
  });

  for (const value of ['2147484', '3601']) {
    it(`When --timeout-s is ${value} (above the 3600 s bound; 2147484 s is past Node's timer limit), Then it is refused with the bounds, exit 2, and nothing is submitted [test:submit-timeout-over-bound-exit-2]`, {
      timeout: 60_000,
    }, async () => {
      const before = await queue.count();
      const run = await submit(['--timeout-s', value]);
      expect(run.code).toBe(2);
      expect(run.output).toMatch(/SUBMIT_TIMEOUT_S must be a whole number from 1 to 3600/);
      expect(run.output).toMatch(/usage: pnpm submit/);
      expect(run.output).not.toMatch(/submitted/);
      expect(await queue.count()).toBe(before);
    });
  }

  for (const args of [['--timeout', '5'], ['5'], ['--timeout-s', '2', '--verbose']]) {
    it(`When it is given ${JSON.stringify(args.join(' '))}, Then it refuses the unknown argument with the usage, exit 2, before touching Redis [test:submit-unknown-argument-exit-2]`, {
      timeout: 60_000,
    }, async () => {
      const before = await queue.count();
      const run = await submit(args);
      expect(run.code).toBe(2);
      expect(run.output).toMatch(/usage: pnpm submit \[--timeout-s N\] \[--job-id UUID\] \[--rows N\]/);
      expect(run.output).not.toMatch(/submitted|\[infra\]/);
      expect(await queue.count()).toBe(before);
    });
  }

  it('When an id is submitted again with another snapshot, Then it says "already submitted with another snapshot" and exits 4; the same snapshot again just waits [test:submit-resubmit-other-snapshot]', {
    timeout: 90_000,
  }, async () => {
    const jobId = randomUUID();
    const first = await submit(['--job-id', jobId.toUpperCase(), '--timeout-s', '1']);
    expect(first.output).toMatch(new RegExp(`submitted ${jobId} `));
    expect(first.code).toBe(3);

    const other = await submit(['--job-id', jobId, '--rows', '2', '--timeout-s', '1']);
    expect(other.code).toBe(4);
    expect(other.output).toMatch(new RegExp(`job ${jobId} was already submitted with another snapshot`));
    expect((await queue.getJob(jobId))?.data.products).toHaveLength(1);

    const same = await submit(['--job-id', jobId, '--timeout-s', '1']);
    expect(same.code).toBe(3);
    expect(same.output).toMatch(/no result within 1 s; the job is still waiting/);
    expect((await queue.getJobs(['waiting'])).filter((job) => job.id === jobId)).toHaveLength(1);
  });
});
