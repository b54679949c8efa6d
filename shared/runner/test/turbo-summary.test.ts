import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatSlowest, readTaskTimes } from '../src/turbo-summary.ts';

const runs = mkdtempSync(join(tmpdir(), 'turbo-runs-'));
afterAll(() => rmSync(runs, { recursive: true, force: true }));

const task = (taskId: string, startTime: number, endTime: number) => ({
  taskId,
  execution: { startTime, endTime, exitCode: 0 },
});

describe('turbo run summary', () => {
  it('When turbo wrote summaries, Then the newest one written in this run gives the tasks, slowest first', () => {
    writeFileSync(join(runs, 'old.json'), JSON.stringify({ tasks: [task('@tasks-lab/old#test', 0, 999_000)] }));
    utimesSync(join(runs, 'old.json'), new Date(1_000), new Date(1_000));
    writeFileSync(
      join(runs, 'new.json'),
      JSON.stringify({
        tasks: [
          task('@tasks-lab/01-state-machine#test', 0, 4_000),
          task('@tasks-lab/16-observability#verify', 0, 190_000),
          { taskId: '@tasks-lab/x#cached' },
        ],
      }),
    );
    const times = readTaskTimes(runs, Date.now() - 60_000);
    expect(times).toEqual([
      { taskId: '16-observability#verify', ms: 190_000 },
      { taskId: '01-state-machine#test', ms: 4_000 },
    ]);
    expect(formatSlowest(times, 1)).toBe('slowest turbo tasks: 16-observability#verify 3m 10s');
  });

  it('When no summary was written in this run, Then there are no times and the line says so', () => {
    expect(readTaskTimes(runs, Date.now() + 60_000)).toEqual([]);
    expect(readTaskTimes(join(runs, 'absent'), 0)).toEqual([]);
    expect(formatSlowest([])).toBe('slowest turbo tasks: none recorded');
  });
});
