import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findLeftovers } from '../src/leftovers.ts';

describe('findLeftovers', () => {
  it('When a process started for this run is still alive, Then it is found; once it ends, it is not', async () => {
    const marker = mkdtempSync(join(tmpdir(), 'leftover-'));
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', marker], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(findLeftovers(marker, new Set()).map((l) => l.pid)).toEqual([child.pid]);
      expect(findLeftovers(marker, new Set([child.pid!]))).toEqual([]);
    } finally {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      rmSync(marker, { recursive: true, force: true });
    }
    expect(findLeftovers(marker, new Set())).toEqual([]);
  });
});
