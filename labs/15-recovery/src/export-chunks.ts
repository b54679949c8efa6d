// Lesson 15's artifact writer: the same file as lesson 11's writeArtifactAtomically (the same
// bytes, a temp file, fsync, rename), but written in chunks of `chunkRows` rows, and before
// EACH chunk the writer asks two questions:
//
//   1. has this process been told to stop?   (the abort signal: SIGTERM after the grace)
//   2. may this job still go on?             (canContinue: the lease is still ours and nobody
//                                            asked to cancel; src/can-continue.ts)
//
// Either "no" stops the export at that chunk boundary: the temp file is removed and NO
// artifact appears under the final name. The race this prevents: a worker that only looked
// at the job when it started would keep writing (and would rename a finished file into place)
// for a job that was cancelled, or whose lease ran out and which another worker now holds.
// A cooperative check between chunks is the only place a long export can be stopped cleanly:
// nothing interrupts it in the middle of a write.
//
// The database is asked between chunks, never while the file is open for a transaction: no
// row lock is held while the disk works (lesson 11's rule).
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

/** Why a chunked write stopped before its last chunk. */
export type ChunkStopReason = 'lost-lease-or-cancelled' | 'aborted';

export interface ChunkedWriteOptions {
  /** Rows per chunk (EXPORT_CHUNK_ROWS). */
  chunkRows: number;
  /** Asked before each chunk: false stops the export (the job was cancelled or its lease is gone). */
  canContinue: () => Promise<boolean>;
  /** Aborted when the process must stop (SIGTERM after the grace): checked before each chunk too. */
  signal?: AbortSignal;
  /** Runs before each chunk's checks, with the chunk's index (the worker's `before-chunk` fault point). */
  beforeChunk?: (index: number) => Promise<void>;
}

export interface ChunkedWriteResult {
  /** true: every chunk was written and the file is under its final name. */
  completed: boolean;
  chunksWritten: number;
  /** How many chunks the export has in all. */
  chunksTotal: number;
  stoppedBecause?: ChunkStopReason;
  /** The final path (only when completed). */
  path?: string;
}

/** Letters, digits, '.', '-' only: a file name, never a path (lesson 11's rule). */
const SAFE_FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9.-]{0,200}$/;

/** Splits the rows into chunks of `size` (the last one may be shorter; no rows: no chunks). */
export function chunksOf<T>(rows: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`chunkRows must be a whole number from 1, got ${size}`);
  const chunks: T[][] = [];
  for (let start = 0; start < rows.length; start += size) chunks.push(rows.slice(start, start + size));
  return chunks;
}

/**
 * The text of one chunk, such that the chunks together are byte for byte lesson 11's
 * renderArtifact(rows) (`JSON.stringify(rows, null, 2)` and a newline): each row indented
 * by two spaces, rows separated by ",\n", the array's brackets around them.
 */
export function renderChunk(chunk: readonly unknown[], index: number, last: boolean): string {
  const body = chunk.map((row) => JSON.stringify(row, null, 2).replace(/^/gm, '  ')).join(',\n');
  return `${index === 0 ? '[\n' : ',\n'}${body}${last ? '\n]\n' : ''}`;
}

/** The artifact directories this process has made: one `mkdir` per directory, not one per export. */
const madeDirectories = new Set<string>();

/**
 * Opens the temp file, making its directory first if this process has not made it yet. A
 * directory removed since (a test's cleanup, an operator) shows as ENOENT: made again, once.
 */
async function openTemporary(dir: string, temporary: string): Promise<FileHandle> {
  if (!madeDirectories.has(dir)) {
    await mkdir(dir, { recursive: true });
    madeDirectories.add(dir);
  }
  try {
    return await open(temporary, 'wx', 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    await mkdir(dir, { recursive: true });
    return await open(temporary, 'wx', 0o644);
  }
}

/** Why we must stop before the next chunk, or undefined to go on. The signal first: it is free. */
async function stopReason(options: ChunkedWriteOptions): Promise<ChunkStopReason | undefined> {
  if (options.signal?.aborted) return 'aborted';
  return (await options.canContinue()) ? undefined : 'lost-lease-or-cancelled';
}

/**
 * Writes `rows` to `<dir>/<fileName>` chunk by chunk, checking before each chunk; renames the
 * temp file into place only when every chunk was written. A stop (or an error) removes the
 * temp file: an incomplete export leaves no artifact. The rows are lesson 11's snapshot.
 */
export async function writeArtifactInChunks(
  dir: string,
  fileName: string,
  rows: readonly unknown[],
  options: ChunkedWriteOptions,
): Promise<ChunkedWriteResult> {
  if (!SAFE_FILE_NAME.test(fileName) || fileName.includes('..')) {
    throw new TypeError(
      `refusing to write an artifact named ${JSON.stringify(fileName.slice(0, 80))}: not a plain file name`,
    );
  }
  // An empty snapshot is still one chunk (the "[]" file): it is checked once like any other.
  const chunks = rows.length === 0 ? [[]] : chunksOf(rows, options.chunkRows);
  const target = join(dir, fileName);
  const temporary = `${target}.tmp-${randomBytes(6).toString('hex')}`;
  let handle: FileHandle | undefined;
  let written = 0;
  try {
    handle = await openTemporary(dir, temporary);
    for (const [index, chunk] of chunks.entries()) {
      await options.beforeChunk?.(index);
      const reason = await stopReason(options);
      if (reason) {
        await handle.close();
        handle = undefined;
        await rm(temporary, { force: true });
        return { completed: false, chunksWritten: written, chunksTotal: chunks.length, stoppedBecause: reason };
      }
      const text = rows.length === 0 ? '[]\n' : renderChunk(chunk, index, index === chunks.length - 1);
      // writeFile on an open handle writes from the current position, all of it (write() may write less).
      await handle.writeFile(text);
      written += 1;
    }
    // fsync before the rename, or a power cut could leave the final name on empty blocks.
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temporary, target);
    return { completed: true, chunksWritten: written, chunksTotal: chunks.length, path: target };
  } catch (err) {
    await handle?.close().catch(() => {});
    await rm(temporary, { force: true });
    throw err;
  }
}
