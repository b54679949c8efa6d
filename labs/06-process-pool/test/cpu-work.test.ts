// Before choosing processes: is the work CPU work at all, and can async code speed it up?
import { describe, expect, it } from 'vitest';
import { firstProductIds, measureCpu, scoreSerially } from '../src/compare.ts';
import { exportRowsFor, loadScorer, scoreExportRow } from '../src/scoring.ts';

const rows = exportRowsFor(firstProductIds(4));

/** Blocks this thread without using the CPU, like a synchronous wait on the network. */
function blockWithoutCpu(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

describe('CPU work and waiting', () => {
  it('When the scoring and a blocking wait are measured, Then the scoring keeps the CPU busy and the wait does not [test:scoring-is-cpu-bound]', async () => {
    const scorer = await loadScorer();

    const scoring = measureCpu(() => scoreSerially(scorer, rows, 2000));
    const waiting = measureCpu(() => blockWithoutCpu(200));

    // Lower bound only for the scoring: on a machine shared with other programs it gets less of a core.
    expect(scoring.cpuShare).toBeGreaterThan(0.1);
    expect(waiting.cpuShare).toBeLessThan(0.05);
    expect(scoring.value).toHaveLength(rows.length);
  });

  it('When rows are scored in async functions under Promise.all, Then they still run one after another and block a timer that was due at once [test:async-does-not-speed-up-cpu]', async () => {
    const events: string[] = [];
    const timer = new Promise<void>((resolve) => setTimeout(() => resolve(void events.push('timer')), 0));
    const scoreLater = async (index: number) => {
      await Promise.resolve();
      events.push(`start ${index}`);
      const score = scoreExportRow(rows[index]!, 500);
      events.push(`end ${index}`);
      return score;
    };

    await Promise.all(rows.map((_, index) => scoreLater(index)));
    await timer;

    // No row started while another was being scored, and the timer waited for all of them.
    expect(events).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3', 'timer']);
  });
});
