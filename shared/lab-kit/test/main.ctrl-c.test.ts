// Ctrl-C in a terminal sends SIGINT to every process of the foreground process group: pnpm, the
// shell running the script, and the lab process. These tests start a busy process exactly that way
// (`pnpm <script>` as the leader of its own group) and signal the whole group, as a terminal does.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sleep } from '../src/time.ts';

const KIT_DIR = fileURLToPath(new URL('..', import.meta.url));

function startScriptInOwnGroup(script: string, env: NodeJS.ProcessEnv = {}) {
  const child = spawn('pnpm', [script], {
    cwd: KIT_DIR,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const waitFor = async (pattern: RegExp, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(output)) {
      if (Date.now() > deadline)
        throw new Error(`waited ${timeoutMs} ms for ${pattern}; the process printed:\n${output}`);
      await sleep(20);
    }
  };
  const signalGroup = (signal: NodeJS.Signals) => process.kill(-child.pid!, signal);
  return { output: () => output, exited, waitFor, signalGroup };
}

describe('Ctrl-C on a lab process started with pnpm', () => {
  it("When the terminal sends SIGINT to a busy process's group, Then it closes cleanly and pnpm exits 0", {
    timeout: 60_000,
  }, async () => {
    for (let press = 1; press <= 3; press++) {
      const proc = startScriptInOwnGroup('fixture:busy-process');
      await proc.waitFor(/busy-process \d+ ready/);
      await sleep(150); // land inside a busy slice, where a handler cannot run at once
      proc.signalGroup('SIGINT');
      const exit = await proc.exited;
      expect({ press, exit }).toEqual({ press, exit: { code: 0, signal: null } });
      expect(proc.output()).toMatch(
        /SIGINT: closing \(at most 10000 ms\)\nclosing: finishing the current slice\nclosed cleanly/,
      );
      expect(proc.output()).not.toMatch(/ELIFECYCLE|again: exiting now/);
    }
  });

  it('When Ctrl-C is pressed a second time while it closes, Then the exit is forced and pnpm reports a failure', {
    timeout: 60_000,
  }, async () => {
    const proc = startScriptInOwnGroup('fixture:busy-process', { CLOSE_EXTRA_MS: '30000' });
    await proc.waitFor(/busy-process \d+ ready/);
    proc.signalGroup('SIGINT');
    await proc.waitFor(/SIGINT: closing/);
    await sleep(1_500); // a person's second press, past the 1 s in which a repeat is pnpm's copy
    proc.signalGroup('SIGINT');
    const exit = await proc.exited;
    expect(exit.code === 0 && exit.signal === null).toBe(false);
    // pnpm relays a second Ctrl-C to its child as SIGTERM, so either signal may be the one that counts.
    expect(proc.output()).toMatch(/(SIGINT|SIGTERM) again: exiting now without waiting/);
    expect(proc.output()).not.toMatch(/closed cleanly/);
  });

  it('When the process is killed (SIGKILL), Then pnpm reports a failure', { timeout: 60_000 }, async () => {
    const proc = startScriptInOwnGroup('fixture:busy-process');
    await proc.waitFor(/busy-process \d+ ready/);
    proc.signalGroup('SIGKILL');
    const exit = await proc.exited;
    expect(exit).toEqual({ code: null, signal: 'SIGKILL' });
  });
});
