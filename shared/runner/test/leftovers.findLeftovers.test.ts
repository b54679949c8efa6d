import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
        [
          '-e',
          `const c = require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', ${JSON.stringify(marker)}], { detached: true, stdio: 'ignore' }); console.log(c.pid); c.unref();`,
        ],
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

  it('When an orphan was started from inside the folder with a relative path (node worker.js), Then it is found by its working directory [test:leftover-relative-path]', async () => {
    const labDir = mkdtempSync(join(tmpdir(), 'leftover-'));
    // Like `node --import tsx src/worker.ts` run in labs/NN: nothing on its command line names the folder.
    writeFileSync(join(labDir, 'worker.js'), 'setInterval(() => {}, 1000);\n');
    const orphanPid = await new Promise<number>((resolve) => {
      const parent = spawn(
        process.execPath,
        [
          '-e',
          `const c = require('child_process').spawn(process.execPath, ['worker.js'], { detached: true, stdio: 'ignore' }); console.log(c.pid); c.unref();`,
        ],
        { cwd: labDir, stdio: ['ignore', 'pipe', 'ignore'] },
      );
      parent.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(findLeftovers(labDir, new Set()).map((l) => l.pid)).toEqual([orphanPid]);
    } finally {
      process.kill(orphanPid, 'SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 200));
      rmSync(labDir, { recursive: true, force: true });
    }
    expect(findLeftovers(labDir, new Set())).toEqual([]);
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
