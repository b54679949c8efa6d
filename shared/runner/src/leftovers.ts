// After `pnpm test`, nothing the labs started may still be running: a drill that kills
// a worker but leaves its child spinning would slow every later check and every later
// run on the machine. Linux only (reads /proc); elsewhere it finds nothing.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

export interface Leftover {
  pid: number;
  command: string;
}

/** Start time of a process, in clock ticks since boot (field 22 of /proc/<pid>/stat). */
function startTicks(pid: number | 'self'): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces; the fields after it never do.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[19]);
  } catch {
    return undefined;
  }
}

/**
 * Processes whose command line mentions `root` and that started after this process did,
 * other than this process and the pids in `keep` (the labs' own Redis and database).
 */
export function findLeftovers(root: string, keep: ReadonlySet<number>): Leftover[] {
  if (!existsSync('/proc/self/stat')) return [];
  const since = startTicks('self') ?? Number.POSITIVE_INFINITY;
  const leftovers: Leftover[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid || keep.has(pid)) continue;
    let command: string;
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    } catch {
      continue; // it ended while we looked
    }
    if (!command.includes(root)) continue;
    const started = startTicks(pid);
    if (started !== undefined && started >= since) leftovers.push({ pid, command: command.slice(0, 160) });
  }
  return leftovers;
}
