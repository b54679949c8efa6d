// The commands of the lesson doc, run as real child processes: what they print is what the doc shows.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startTsProcess } from '@tasks-lab/lab-kit';

const script = fileURLToPath(new URL('../scripts/batch.ts', import.meta.url));

async function runBatchCli(args: string[]) {
  const cli = startTsProcess(script, { args });
  const exit = await cli.exited;
  return { exit, output: cli.output() };
}

const closedLines = (output: string, reason: string) =>
  output.match(new RegExp(`^consumer \\d closed \\(${reason}\\)$`, 'gm')) ?? [];

describe('scripts/batch.ts', () => {
  it('When run with the defaults, Then it prints completed 20, four drained consumers and exits 0', async () => {
    const { exit, output } = await runBatchCli([]);
    expect(output).toMatch(/^completed 20 in \d+ ms$/m);
    expect(output).toContain('job succeeded: {"rows":20}');
    expect(output).toContain('peak reads in flight 2, longest queue 4');
    expect(closedLines(output, 'drained')).toHaveLength(4);
    expect(exit.code).toBe(0);
  });

  it('When run with --budget-ms 150, Then it prints "batch timed out after 150 ms", four cancelled consumers and exits 1 [test:drill-cli-timeout]', async () => {
    const { exit, output } = await runBatchCli(['--budget-ms', '150']);
    expect(output).toMatch(/^batch timed out after 150 ms \(after \d+ ms\)$/m);
    expect(output).toContain('job failed: batch timed out after 150 ms');
    expect(output).not.toMatch(/^completed/m);
    expect(closedLines(output, 'cancelled')).toHaveLength(4);
    expect(exit.code).toBe(1);
  });

  it('When run with --fail-product 3, Then it prints the failed batch, one failed and three cancelled consumers and exits 1 [test:drill-cli-fail-item]', async () => {
    const { exit, output } = await runBatchCli(['--fail-product', '3']);
    expect(output).toMatch(/^batch failed: product 3 is not valid \(injected fault\) \(after \d+ ms\)$/m);
    expect(closedLines(output, 'failed')).toHaveLength(1);
    expect(closedLines(output, 'cancelled')).toHaveLength(3);
    expect(exit.code).toBe(1);
  });

  it('When run with --budget-ms 0, Then it refuses the value in one line naming BATCH_BUDGET_MS and exits 1', async () => {
    const { exit, output } = await runBatchCli(['--budget-ms', '0']);
    expect(output.trim()).toMatch(
      /^invalid options: BATCH_BUDGET_MS must be a whole number of milliseconds from 1 to \d+, got "0"$/,
    );
    expect(exit.code).toBe(1);
  });
});
