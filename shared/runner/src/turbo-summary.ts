// How long turbo's tasks took, read from the run summary `--summarize` writes (.turbo/runs/<id>.json),
// so a CI run that nears its time budget says which tasks to look at first.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { formatElapsed } from './closing.ts';

interface SummaryTask {
  taskId: string;
  execution?: { startTime: number; endTime: number };
}

export interface TaskTime {
  taskId: string;
  ms: number;
}

/** The tasks of the newest run summary under `runsDir` written since `since`, slowest first. */
export function readTaskTimes(runsDir: string, since: number): TaskTime[] {
  let newest: { path: string; mtime: number } | undefined;
  try {
    for (const name of readdirSync(runsDir)) {
      if (!name.endsWith('.json')) continue;
      const path = join(runsDir, name);
      const mtime = statSync(path).mtimeMs;
      if (mtime >= since && (!newest || mtime > newest.mtime)) newest = { path, mtime };
    }
  } catch {
    return [];
  }
  if (!newest) return [];
  const summary = JSON.parse(readFileSync(newest.path, 'utf8')) as { tasks?: SummaryTask[] };
  return (summary.tasks ?? [])
    .filter((task) => task.execution)
    .map((task) => ({
      taskId: task.taskId.replace(/^@tasks-lab\//, ''),
      ms: task.execution!.endTime - task.execution!.startTime,
    }))
    .sort((a, b) => b.ms - a.ms);
}

/** "slowest turbo tasks: 16-observability#test 3m 10s, ..." */
export function formatSlowest(times: readonly TaskTime[], count = 8): string {
  const parts = times.slice(0, count).map((t) => `${t.taskId} ${formatElapsed(t.ms)}`);
  return `slowest turbo tasks: ${parts.length > 0 ? parts.join(', ') : 'none recorded'}`;
}
