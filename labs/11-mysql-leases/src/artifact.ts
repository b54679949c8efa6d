// The export's output file. Each claim writes its OWN file, named after the job and the
// lease token (`<job id>.<token>.json`, leases.ts's artifactName), so a zombie worker
// that wakes up late can only leave a file nobody points at: it can never overwrite the
// file of the worker that holds the lease now. Which file is THE result is decided by
// the database: the row's result_ref, set by a finish that still held the lease.
//
// The bytes appear under the final name all at once (temp file, fsync, rename), as in
// lesson 09, and this happens OUTSIDE any database transaction: no row lock is held
// while the disk works.
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** This lab's artifacts/ folder (git-ignored); checks and tests use folders of their own. */
export const ARTIFACTS_DIR = fileURLToPath(new URL('../artifacts', import.meta.url));

/** Letters, digits, '.', '-' only: a file name, never a path (artifactName's output is one). */
const SAFE_FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9.-]{0,200}$/;

/** The snapshot as the file holds it: the rows frozen at submit, one per product. */
export function renderArtifact(rows: readonly unknown[]): Buffer {
  return Buffer.from(JSON.stringify(rows, null, 2) + '\n', 'utf8');
}

/**
 * Writes `rows` to `<dir>/<fileName>` atomically: a temp file of this write's own, fsynced,
 * then renamed over the final name. A reader sees no file or the whole file, never half.
 * Returns the final path.
 */
export async function writeArtifactAtomically(
  dir: string,
  fileName: string,
  rows: readonly unknown[],
): Promise<string> {
  if (!SAFE_FILE_NAME.test(fileName) || fileName.includes('..')) {
    throw new TypeError(
      `refusing to write an artifact named ${JSON.stringify(fileName.slice(0, 80))}: not a plain file name`,
    );
  }
  await mkdir(dir, { recursive: true });
  const target = join(dir, fileName);
  const temporary = `${target}.tmp-${randomBytes(6).toString('hex')}`;
  try {
    const handle = await open(temporary, 'wx', 0o644);
    try {
      await handle.writeFile(renderArtifact(rows));
      // fsync before the rename, or a power cut could leave the final name on empty blocks.
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, target);
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
  return target;
}
