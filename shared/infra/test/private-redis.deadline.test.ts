import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startPrivateRedis } from '../src/private-redis.ts';

/** redis-server processes whose parent is this test process (the private Redis is our child). */
function ourRedisChildren(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === process.pid && comm.startsWith('redis')) pids.push(pid);
    } catch {
      /* it ended while we looked */
    }
  }
  return pids;
}

let tempRoot: string;
let savedTmpdir: string | undefined;
beforeEach(() => {
  // os.tmpdir() reads TMPDIR on every call: the private Redis makes its folder in here, where
  // nothing else (no other lab's drill running at the same time) makes one.
  savedTmpdir = process.env.TMPDIR;
  tempRoot = mkdtempSync(join(tmpdir(), 'private-redis-deadline-'));
  process.env.TMPDIR = tempRoot;
});
afterEach(() => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
  for (const pid of ourRedisChildren()) process.kill(pid, 'SIGKILL'); // only if the test failed
  rmSync(tempRoot, { recursive: true, force: true });
});

describe('startPrivateRedis', () => {
  it('When the private Redis misses its start deadline, Then its process is killed and its folder removed [test:private-redis-deadline-cleans-up]', async () => {
    await expect(startPrivateRedis({ startTimeoutMs: 1 })).rejects.toThrow(/did not answer within 1 ms/);
    expect(ourRedisChildren()).toEqual([]);
    expect(readdirSync(tempRoot)).toEqual([]);
  });

  it('When it starts in time, Then close() stops it and removes its folder', async () => {
    const redis = await startPrivateRedis();
    expect(readdirSync(tempRoot)).toHaveLength(1);
    await redis.close();
    expect(ourRedisChildren()).toEqual([]);
    expect(readdirSync(tempRoot)).toEqual([]);
  });
});
