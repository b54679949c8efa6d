// After `pnpm test`, nothing the labs started may still be running: a drill that kills
// a worker but leaves its child spinning would slow every later check and every later
// run on the machine. Linux only (reads /proc); elsewhere it finds nothing.
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface Leftover {
  pid: number;
  command: string;
}

/** Fields 3 onwards of /proc/<pid>/stat (the command name, field 2, may contain spaces). */
function statFields(pid: number | 'self'): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Start time in clock ticks since boot (field 22). */
const startTicks = (pid: number | 'self') => {
  const fields = statFields(pid);
  return fields ? Number(fields[19]) : undefined;
};

/** Parent pid (field 4). */
const parentOf = (pid: number) => {
  const fields = statFields(pid);
  return fields ? Number(fields[1]) : undefined;
};

/** True when `pid` is this process's child, grandchild, ... (e.g. tsx's own esbuild service). */
function isOurDescendant(pid: number): boolean {
  for (
    let current = parentOf(pid), hops = 0;
    current && current > 1 && hops < 64;
    current = parentOf(current), hops++
  ) {
    if (current === process.pid) return true;
  }
  return false;
}

/** The command line, or undefined when the process ended while we looked. */
function commandOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return undefined;
  }
}

/** The working directory, or undefined when it is not ours to read or the process ended. */
function workingDirOf(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
}

/**
 * A process belongs to the folder when its command line names it (`node /repo/labs/09/src/worker.ts`)
 * or when it runs inside it: `pnpm worker` in labs/09 starts `node --import tsx src/worker.ts`,
 * whose command line has only relative paths.
 */
function belongsTo(root: string, command: string, workingDir: string | undefined): boolean {
  if (command.includes(root)) return true;
  return workingDir !== undefined && (workingDir === root || workingDir.startsWith(`${root}/`));
}

/**
 * Processes that belong to `root` (see belongsTo) and started after this process did,
 * other than this process, its own descendants, and the pids in `keep` (the labs' own
 * Redis and database).
 */
export function findLeftovers(root: string, keep: ReadonlySet<number>): Leftover[] {
  if (!existsSync('/proc/self/stat')) return [];
  const since = startTicks('self') ?? Number.POSITIVE_INFINITY;
  const leftovers: Leftover[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid || keep.has(pid)) continue;
    const command = commandOf(pid);
    if (command === undefined || !belongsTo(root, command, workingDirOf(pid))) continue;
    const started = startTicks(pid);
    if (started !== undefined && started >= since && !isOurDescendant(pid))
      leftovers.push({ pid, command: command.slice(0, 160) });
  }
  return leftovers;
}
