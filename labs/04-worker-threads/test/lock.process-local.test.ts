// The lesson's lock protects memory inside one process. Two processes each have their own
// memory, so each has its own lock: both "hold" it at the same time. It is no tool for
// making work idempotent across processes or machines (later lessons use the database).
import { fileURLToPath } from 'node:url';
import { isAlive, startTsProcess } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';

const holdLock = fileURLToPath(new URL('./fixtures/hold-lock-process.ts', import.meta.url));

describe('Mutex across processes', () => {
  it('When two processes each take the lesson lock, Then both hold it at once: it does not reach across processes [test:lock-is-process-local]', {
    timeout: 60_000,
  }, async () => {
    const first = startTsProcess(holdLock);
    const second = startTsProcess(holdLock);
    try {
      await first.waitForOutput(/holds the lock/, 30_000);
      await second.waitForOutput(/holds the lock/, 30_000);
      // Neither has let go: the first still runs, holding its lock, while the second got its own.
      expect(isAlive(first.pid)).toBe(true);
    } finally {
      await Promise.all([first.stop(2_000), second.stop(2_000)]);
    }
  });
});
