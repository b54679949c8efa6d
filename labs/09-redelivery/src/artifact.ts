// The export's output file, written so that running the same business job twice is
// harmless: the file name comes only from the business job id, the content only from
// the frozen snapshot, and the bytes appear under the final name all at once.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { artifactPath, type ExportMessage } from '@tasks-lab/08-broker-worker';

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
  /** Called right after the rename, before the caller can report success (the lesson's crash point). */
  afterRename?: (outcome: ArtifactOutcome) => void | Promise<void>;
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

export const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/**
 * The job's one output file. The id comes from a message in Redis, which anyone with the
 * password can write: lab 08's artifactPath checks it is a UUID before it becomes a path.
 */
export const finalArtifactPath = (dir: string, jobId: string): string => artifactPath(jobId, dir);

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
  const bytes = (options.render ?? renderArtifactBytes)(message);
  const target = finalArtifactPath(dir, message.job_id);
  const temporary = `${target}.tmp-${randomBytes(6).toString('hex')}`;
  await mkdir(dir, { recursive: true });
  try {
    await writeAndSync(temporary, bytes, 'wx', options.chunkBytes);
    await rename(temporary, target);
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
  const outcome = { job_id: message.job_id, path: target, sha256: sha256Hex(bytes), bytes: bytes.byteLength };
  await options.afterRename?.(outcome);
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
  const bytes = (options.render ?? renderArtifactBytes)(message);
  const target = finalArtifactPath(dir, message.job_id);
  await mkdir(dir, { recursive: true });
  await writeAndSync(target, bytes, 'w', options.chunkBytes);
  const outcome = { job_id: message.job_id, path: target, sha256: sha256Hex(bytes), bytes: bytes.byteLength };
  await options.afterRename?.(outcome);
  return outcome;
}

export type ArtifactWriter = typeof writeArtifactAtomically;

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
