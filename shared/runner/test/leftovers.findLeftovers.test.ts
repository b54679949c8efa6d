import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findLeftovers } from '../src/leftovers.ts';

describe('findLeftovers', () => {
  it('When an orphan started for this run is still alive, Then it is found; once it ends, it is not', async () => {
    const marker = mkdtempSync(join(tmpdir(), 'leftover-'));
    // A grandchild whose parent exits at once: an orphan, like a worker's child after a SIGKILL.
    const orphanPid = await new Promise<number>((resolve) => {
      const parent = spawn(
        process.execPath,
        ['-e', `const c = require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', ${JSON.stringify(marker)}], { detached: true, stdio: 'ignore' }); console.log(c.pid); c.unref();`],
        { stdio: ['ignore', 'pipe', 'ignore'] },
      );
      parent.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(findLeftovers(marker, new Set()).map((l) => l.pid)).toEqual([orphanPid]);
      expect(findLeftovers(marker, new Set([orphanPid]))).toEqual([]);
    } finally {
      process.kill(orphanPid, 'SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 200));
      rmSync(marker, { recursive: true, force: true });
    }
    expect(findLeftovers(marker, new Set())).toEqual([]);
  });

  it('When a process is our own child (tsx keeps an esbuild service), Then it is not a leftover', async () => {
    const marker = mkdtempSync(join(tmpdir(), 'leftover-'));
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', marker], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(findLeftovers(marker, new Set())).toEqual([]);
    } finally {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      rmSync(marker, { recursive: true, force: true });
    }
  });
});
