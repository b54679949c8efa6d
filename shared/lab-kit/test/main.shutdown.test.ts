import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { onShutdown } from '../src/main.ts';
import { launchProcess, startTsProcess } from '../src/processes.ts';
import { sleep } from '../src/time.ts';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const READY = /shutdown-process \d+ ready/;

describe('onShutdown in a real process', () => {
  it('When the process gets SIGTERM, Then close runs once and it exits 0', { timeout: 30_000 }, async () => {
    const proc = await launchProcess(fixture('shutdown-process.ts'), { ready: READY, env: { CLOSE_MS: '200' } });
    const exit = await proc.stop(5000);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(proc.output()).toMatch(/SIGTERM: closing \(at most 5000 ms\)\nclosing\nclosed/);
  });

  it('When close outlasts the grace, Then the process exits 1 anyway', { timeout: 30_000 }, async () => {
    const proc = await launchProcess(fixture('shutdown-process.ts'), {
      ready: READY,
      env: { CLOSE_MS: '60000', GRACE_MS: '300' },
    });
    const exit = await proc.stop(10_000);
    expect(exit.code).toBe(1);
    expect(proc.output()).toMatch(/still closing after 300 ms: exiting anyway/);
  });

  it('When a second signal arrives while closing, after the repeat window, Then the process exits 130 at once', {
    timeout: 30_000,
  }, async () => {
    const proc = await launchProcess(fixture('shutdown-process.ts'), {
      ready: READY,
      env: { CLOSE_MS: '60000', REPEAT_WINDOW_MS: '200' },
    });
    proc.child.kill('SIGTERM');
    await proc.waitForOutput(/closing\n/);
    await sleep(400); // past the 200 ms window: this is a second request, not a copy of the first
    proc.child.kill('SIGINT');
    const exit = await proc.exited;
    expect(exit.code).toBe(130);
    expect(proc.output()).toMatch(/SIGINT again: exiting now without waiting/);
  });
});

describe('onShutdown with an injected exit', () => {
  it('When the same signal arrives twice within the repeat window (pnpm relays Ctrl-C), Then close runs once and the exit is 0', async () => {
    const lines: string[] = [];
    const codes: number[] = [];
    let clock = 1_000;
    let closes = 0;
    let finishClose: () => void = () => {};
    const remove = onShutdown(
      () => {
        closes++;
        return new Promise<void>((resolve) => (finishClose = resolve));
      },
      { signals: ['SIGUSR2'], log: (line) => lines.push(line), exit: (code) => codes.push(code), now: () => clock },
    );
    process.emit('SIGUSR2', 'SIGUSR2');
    clock += 2; // pnpm's copy, 2 ms later
    process.emit('SIGUSR2', 'SIGUSR2');
    finishClose();
    await new Promise((resolve) => setTimeout(resolve, 20));
    clock += 5_000; // a real second press, long after
    process.emit('SIGUSR2', 'SIGUSR2');
    remove();
    expect(closes).toBe(1);
    expect(codes).toEqual([0, 130]);
    expect(lines).toEqual(['SIGUSR2: closing (at most 10000 ms)', 'SIGUSR2 again: exiting now without waiting']);
  });

  it('When close fails, Then the exit code is 1 and the reason is logged', async () => {
    const lines: string[] = [];
    const codes: number[] = [];
    const remove = onShutdown(async () => Promise.reject(new Error('pool would not close')), {
      signals: ['SIGUSR2'],
      log: (line) => lines.push(line),
      exit: (code) => codes.push(code),
    });
    process.emit('SIGUSR2', 'SIGUSR2');
    await new Promise((resolve) => setTimeout(resolve, 20));
    remove();
    expect(codes).toEqual([1]);
    expect(lines).toContain('close failed: pool would not close');
  });
});

describe('runMain', () => {
  it('When main returns a number, Then it is the exit code', { timeout: 30_000 }, async () => {
    const exit = await startTsProcess(fixture('exit-code-process.ts')).exited;
    expect(exit.code).toBe(7);
  });

  it('When main throws, Then one line is printed and the exit code is 1', { timeout: 30_000 }, async () => {
    const proc = startTsProcess(fixture('exit-code-process.ts'), { env: { MODE: 'throw' } });
    const exit = await proc.exited;
    expect(exit.code).toBe(1);
    expect(proc.output().trim()).toBe('main failed on purpose');
  });
});
