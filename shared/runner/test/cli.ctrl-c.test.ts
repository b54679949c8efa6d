// Ctrl-C on `pnpm lab NN` reaches pnpm, the runner and the verify it started (one process group, as
// in a terminal). The verify must get to stop its check, clean up and report; the runner must wait
// for that report instead of dying first. The interrupted run's result goes to a temporary folder:
// pnpm test runs this beside lab 02's own verify, whose result the closing section counts.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/labs.ts';

const resultDir = mkdtempSync(join(tmpdir(), 'ctrl-c-result-'));
afterAll(() => rmSync(resultDir, { recursive: true, force: true }));

describe('Ctrl-C on pnpm lab NN', () => {
  it('When the terminal sends SIGINT to the group during a check, Then the verify reports the interrupted run and the runner exits 1 after it', {
    timeout: 120_000,
  }, async () => {
    const env = { ...process.env, TASKS_LAB_RESULT_DIR: resultDir };
    const child = spawn('pnpm', ['lab', '02'], {
      cwd: REPO_ROOT,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let sent = false;
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      // After the first check passed, verify's own handler is in place and a check is running.
      if (!sent && /✓ pass/.test(output)) {
        sent = true;
        process.kill(-child.pid!, 'SIGINT');
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const exit = await new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    expect(sent).toBe(true);
    expect(output).toMatch(/SIGINT: stopping the running check and cleaning up/);
    expect(output).toMatch(
      /Interrupted: \d+ check\(s\) did not run, and count as failed\.\n[\s\S]*\d+ passed, \d+ failed/,
    );
    expect(output).not.toMatch(/The verify script stopped before reporting/);
    expect(exit).toBe(1);
    // The interrupted run's result is in the folder the test named, not in labs/02-bounded-async.
    const result = JSON.parse(readFileSync(join(resultDir, '.lab-result.json'), 'utf8')) as {
      lesson: string;
      failed: number;
    };
    expect(result.lesson).toBe('02');
    expect(result.failed).toBeGreaterThan(0);
  });
});
