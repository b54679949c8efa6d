// How `pnpm test` runs turbo over every package, in one place so a test can dry-run
// exactly the same command and read what turbo says about it.
//   --concurrency=2  the machines this course targets have 2 cores, and labs measure timings
//   --continue       one failing lab must not hide how the others did
//   --summarize      a run summary in .turbo/runs, from which pnpm test prints the slowest tasks
// No --no-daemon: turbo 2.x runs tasks without a daemon and warns that the flag is deprecated;
// the leftover-process scan would still catch a daemon that outlived the run.
export const TURBO_TASKS = ['typecheck', 'test', 'verify'] as const;

export function turboRunArgs(extra: readonly string[] = []): string[] {
  return ['exec', 'turbo', 'run', ...TURBO_TASKS, '--concurrency=2', '--continue', '--summarize', ...extra];
}
