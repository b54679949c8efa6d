import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  checkIdProblems,
  defineCheck,
  fail,
  findCheck,
  formatResult,
  formatSummary,
  pass,
  runCheck,
  runChecks,
  sharedScenario,
  type Check,
} from '../src/checks.ts';
import { isAlive, launchProcess, startTsProcess, type LabProcess } from '../src/processes.ts';
import { withResources } from '../src/resources.ts';

const STUBBORN = fileURLToPath(new URL('./fixtures/ignores-sigterm.ts', import.meta.url));

describe('runCheck', () => {
  it('When a check throws, Then it is a failed check with the error as the observation', async () => {
    const result = await runCheck({
      id: 'throws',
      name: 'throws',
      run: () => {
        throw new Error('boom');
      },
    });
    expect(result).toMatchObject({ id: 'throws', ok: false, observed: 'threw: boom' });
  });

  it('When a check hangs past its time limit, Then it fails instead of hanging the verify', async () => {
    const result = await runCheck(
      { id: 'hangs', name: 'hangs', run: () => new Promise(() => {}), timeoutMs: 50 },
      { cleanupGraceMs: 50 },
    );
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/no answer within 50 ms/);
  });

  it('When a check hangs while it holds a real process, Then the timeout kills it and the next check passes', {
    timeout: 30_000,
  }, async () => {
    let held: LabProcess | undefined;
    const hanging: Check = {
      id: 'hangs-holding-a-process',
      name: 'hangs holding a process',
      timeoutMs: 3000,
      run: (signal) =>
        withResources(signal, async (res) => {
          held = await launchProcess(STUBBORN, { ready: /stubborn \d+ ready/, resources: res });
          await held.exited; // never happens by itself: only the scope's clean-up ends it
          return pass('the process exited by itself');
        }),
    };
    const result = await runCheck(hanging);
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/no answer within 3000 ms; its resources were released/);
    expect(held && isAlive(held.pid)).toBe(false);

    const next = await runCheck({ id: 'next', name: 'next', run: () => pass('ran') });
    expect(next.ok).toBe(true);
  });
});

describe('defineCheck and friends', () => {
  it('When a check is defined as scenario + judge, Then the judge sees exactly the evidence the scenario gathered', async () => {
    const check = defineCheck({
      id: 'sum',
      name: 'adds',
      scenario: async () => ({ sum: 1 + 1 }),
      judge: (e) => (e.sum === 2 ? pass(`sum ${e.sum}`) : fail(`sum ${e.sum}`)),
    });
    expect(await runCheck(check)).toMatchObject({ id: 'sum', ok: true, observed: 'sum 2' });
  });

  it('When two checks share a scenario, Then it runs once', async () => {
    let runs = 0;
    const scenario = sharedScenario(async () => ++runs);
    const checks = ['a', 'b'].map((id) => defineCheck({ id, name: id, scenario, judge: (n) => pass(`run ${n}`) }));
    await runChecks(checks, () => {});
    expect(runs).toBe(1);
  });

  it('When an id is looked up, Then findCheck returns it or names the ids there are', () => {
    const checks: Check[] = [{ id: 'one', name: 'one', run: () => pass('') }];
    expect(findCheck(checks, 'one').name).toBe('one');
    expect(() => findCheck(checks, 'two')).toThrow(/no check with id "two"; the ids are: one/);
  });

  it('When ids are not kebab-case or repeat, Then they are reported and runChecks refuses to run', async () => {
    const checks: Check[] = [
      { id: 'Bad Id', name: 'x', run: () => pass('') },
      { id: 'dup', name: 'y', run: () => pass('') },
      { id: 'dup', name: 'z', run: () => pass('') },
    ];
    expect(checkIdProblems(checks)).toEqual(['check id "Bad Id" is not kebab-case', 'check id "dup" is used twice']);
    await expect(runChecks(checks, () => {})).rejects.toThrow(/mis-declared/);
  });
});

describe('runChecks', () => {
  it('When one of two checks fails, Then the summary says 1 passed, 1 failed and each line names its id', async () => {
    const lines: string[] = [];
    const report = await runChecks(
      [
        { id: 'good', name: 'good', run: () => pass('fine') },
        { id: 'bad', name: 'bad', run: () => fail('not fine') },
      ],
      (line) => lines.push(line),
    );
    expect(formatSummary(report)).toBe('1 passed, 1 failed');
    expect(lines).toEqual(['✓ pass  good [good] — observed: fine', '✗ FAIL  bad [bad] — observed: not fine']);
    expect(formatResult(report.results[1]!)).toMatch(/^✗ FAIL/);
  });
});

describe('LabProcess.stop', () => {
  it('When a process ignores SIGTERM, Then stop() SIGKILLs it after the grace', { timeout: 30_000 }, async () => {
    const proc = await launchProcess(STUBBORN, { ready: /stubborn \d+ ready/ });
    const started = Date.now();
    const exit = await proc.stop(500);
    expect(exit.signal).toBe('SIGKILL');
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    expect(proc.output()).toMatch(/ignoring SIGTERM/);
  });

  it('When a process never prints its ready line, Then launchProcess kills it and says what it printed', {
    timeout: 30_000,
  }, async () => {
    let error: unknown;
    try {
      await launchProcess(STUBBORN, { ready: /never printed/, readyTimeoutMs: 1500 });
    } catch (err) {
      error = err;
    }
    expect(String(error)).toMatch(/did not print \/never printed\/ within 1500 ms; it printed:\nstubborn \d+ ready/);
    const pid = Number(/stubborn (\d+) ready/.exec(String(error))?.[1]);
    expect(isAlive(pid)).toBe(false);
  });
});

describe('runVerify interrupted', () => {
  it('When verify gets SIGINT during a check, Then that check is cleaned up, the rest do not run, and it exits 1', {
    timeout: 30_000,
  }, async () => {
    const verify = startTsProcess(fileURLToPath(new URL('./fixtures/interrupted-verify.ts', import.meta.url)));
    const [, heldPid] = await verify.waitForOutput(/holding (\d+)/);
    verify.child.kill('SIGINT');
    const exit = await verify.exited;
    expect(exit.code).toBe(1);
    expect(isAlive(Number(heldPid))).toBe(false);
    expect(verify.output()).toMatch(
      /✗ FAIL {2}hangs holding a process \[hangs\] — observed: stopped: verify got SIGINT; its resources were released/,
    );
    expect(verify.output()).not.toMatch(/never reached/);
    expect(verify.output()).toMatch(/1 passed, 2 failed/);
  });
});
