// Real child processes: each fake lab's verify.ts runs in its own Node process.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive, waitFor } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { runEarlierLabs, runLabVerify, writeEarlierLabsRecord, type EarlierLabsRecord } from '../src/earlier-labs.ts';
import { addFakeLab, fakeVerify, hangingVerify, makeLabsDir } from './fake-labs.ts';

// Real tsx processes start slowly on a busy 2-core machine.
describe('runEarlierLabs', { timeout: 90_000 }, () => {
  it('When every lab prints a clean summary, Then each is recorded as passed with its counts', async () => {
    const labsDir = makeLabsDir();
    addFakeLab(labsDir, 'aa-one', fakeVerify(3, 0));
    addFakeLab(labsDir, 'bb-two', fakeVerify(5, 0));
    const record = await runEarlierLabs(labsDir, { labs: ['aa-one', 'bb-two'] });
    expect(record.labs.map((run) => [run.lab, run.status, run.passed, run.failed, run.exitCode])).toEqual([
      ['aa-one', 'passed', 3, 0, 0],
      ['bb-two', 'passed', 5, 0, 0],
    ]);
  });

  it("When a lab reports a failed check, Then it is recorded as failed with that check's id and the others still run", async () => {
    const labsDir = makeLabsDir();
    addFakeLab(labsDir, 'aa-bad', fakeVerify(2, 1));
    addFakeLab(labsDir, 'bb-good', fakeVerify(1, 0));
    const record = await runEarlierLabs(labsDir, { labs: ['aa-bad', 'bb-good'] });
    expect(record.labs.map((run) => run.status)).toEqual(['failed', 'passed']);
    expect(record.labs[0]).toMatchObject({ summary: '2 passed, 1 failed', failedChecks: ['fake-1'] });
  });

  it('When a lab has no verify script, Then it is recorded as missing', async () => {
    const run = await runLabVerify(makeLabsDir(), 'zz-absent');
    expect(run.status).toBe('missing');
  });

  it('When a lab crashes before printing a summary, Then it is recorded as no-summary with its exit code', async () => {
    const labsDir = makeLabsDir();
    addFakeLab(labsDir, 'aa-crash', "throw new Error('boom');\n");
    const run = await runLabVerify(labsDir, 'aa-crash');
    expect(run.status).toBe('no-summary');
    expect(run.exitCode).toBe(1);
  });

  it('When a lab runs past its time limit, Then it is stopped and recorded as timed out', async () => {
    const labsDir = makeLabsDir();
    addFakeLab(labsDir, 'aa-hang', 'setInterval(() => {}, 1000);\n');
    const run = await runLabVerify(labsDir, 'aa-hang', { timeoutMs: 1500 });
    expect(run.status).toBe('timed-out');
  });

  it('When the caller gives up (its signal aborts), Then the running verify is stopped, cleans up its check, and the run rejects', async () => {
    const labsDir = makeLabsDir();
    addFakeLab(labsDir, 'aa-hang', hangingVerify());
    const file = (name: string) => join(labsDir, 'aa-hang', name);
    const controller = new AbortController();
    const running = runLabVerify(labsDir, 'aa-hang', { signal: controller.signal });
    await waitFor('the fake verify to start its check', () => existsSync(file('pid')), { timeoutMs: 30_000 });
    controller.abort(new Error('the check ran out of time'));

    await expect(running).rejects.toThrow('the check ran out of time');
    // SIGTERM, not SIGKILL: the verify aborted its running check, whose resources closed.
    expect(existsSync(file('cleaned'))).toBe(true);
    expect(isAlive(Number(readFileSync(file('pid'), 'utf8')))).toBe(false);
  });

  it('When the record is written, Then .earlier-labs.json holds the same runs', async () => {
    const labsDir = makeLabsDir();
    addFakeLab(labsDir, 'aa-one', fakeVerify(1, 0));
    const record = await runEarlierLabs(labsDir, { labs: ['aa-one'] });
    const file = writeEarlierLabsRecord(labsDir, record);
    expect(file).toBe(join(labsDir, '.earlier-labs.json'));
    expect(JSON.parse(readFileSync(file, 'utf8')) as EarlierLabsRecord).toEqual(record);
  });
});
