// The export's output file, written so that running the same business job twice is
// harmless: the file name comes only from the business job id, the content only from
// the frozen snapshot, and the bytes appear under the final name all at once.
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import type { ExportMessage } from '@tasks-lab/07-choosing-executors';
import { artifactPath, sha256 } from '@tasks-lab/08-broker-worker';

/** How the artifact's bytes are made from a message (swappable to show a non-deterministic one). */
export type RenderArtifact = (message: ExportMessage) => Buffer;

export interface ArtifactOutcome {
  job_id: string;
  /** The final path: `<dir>/<job_id>.json`, the same for every delivery of the job. */
  path: string;
  sha256: string;
  bytes: number;
}

export interface WriteArtifactOptions {
  render?: RenderArtifact;
  /** Bytes per write call; small chunks make a half-written file easy to catch in place. @defaultValue 16384 */
  chunkBytes?: number;
}

/**
 * Same snapshot in, same bytes out: keys sorted at every level, no clock, no pid, no
 * random. That is what makes the sha256 of two deliveries comparable at all.
 */
export const renderArtifactBytes: RenderArtifact = (message) =>
  Buffer.from(JSON.stringify(sortKeys(message), null, 2) + '\n', 'utf8');

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([key, inner]) => [key, sortKeys(inner)]));
  }
  return value;
}

/**
 * The job's one output file. The id comes from a message in Redis, which anyone with the
 * password can write: lab 08's artifactPath checks it is a UUID before it becomes a path.
 */
export const finalArtifactPath = (dir: string, jobId: string): string => artifactPath(jobId, dir);

/** The sha256 of the file at `path`, or undefined when there is no file yet. */
export async function existingDigest(path: string): Promise<string | undefined> {
  try {
    return sha256(await readFile(path));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Temp names start with the final name, so a listing shows which job left one behind. */
export const isTempArtifact = (fileName: string): boolean => fileName.includes('.json.tmp-');

/**
 * Writes `<dir>/<job_id>.json` atomically: the bytes go to a temp file of this
 * delivery's own (random suffix, so two deliveries never share one), are fsynced, and
 * the temp file is renamed over the final name. A reader sees the old file or the new
 * one, never half of one. On an error the temp file is removed; other files are untouched.
 */
export async function writeArtifactAtomically(
  dir: string,
  message: ExportMessage,
  options: WriteArtifactOptions = {},
): Promise<ArtifactOutcome> {
  const { bytes, outcome } = await prepareArtifact(dir, message, options);
  const temporary = `${outcome.path}.tmp-${randomBytes(6).toString('hex')}`;
  try {
    await writeAndSync(temporary, bytes, 'wx', options.chunkBytes);
    await rename(temporary, outcome.path);
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
  return outcome;
}

/**
 * The mistake this lesson replaces, kept for the drills: truncate the final file and
 * write into it. While it runs, a reader can see an empty or half-written file.
 */
export async function writeArtifactInPlace(
  dir: string,
  message: ExportMessage,
  options: WriteArtifactOptions = {},
): Promise<ArtifactOutcome> {
  const { bytes, outcome } = await prepareArtifact(dir, message, options);
  await writeAndSync(outcome.path, bytes, 'w', options.chunkBytes);
  return outcome;
}

export type ArtifactWriter = typeof writeArtifactAtomically;

/** What both writers do first: render the bytes, name the file (the id is checked), make the folder. */
async function prepareArtifact(
  dir: string,
  message: ExportMessage,
  options: WriteArtifactOptions,
): Promise<{ bytes: Buffer; outcome: ArtifactOutcome }> {
  const bytes = (options.render ?? renderArtifactBytes)(message);
  const path = finalArtifactPath(dir, message.job_id);
  await mkdir(dir, { recursive: true });
  return { bytes, outcome: { job_id: message.job_id, path, sha256: sha256(bytes), bytes: bytes.byteLength } };
}

async function writeAndSync(path: string, bytes: Buffer, flags: 'wx' | 'w', chunkBytes = 16 * 1024): Promise<void> {
  const handle = await open(path, flags, 0o644);
  try {
    for (let offset = 0; offset < bytes.byteLength; offset += chunkBytes) {
      await handle.write(bytes, offset, Math.min(chunkBytes, bytes.byteLength - offset));
    }
    // fsync before the rename: otherwise a power cut could leave the new name pointing at empty blocks.
    await handle.sync();
  } finally {
    await handle.close();
  }
}
