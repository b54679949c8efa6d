// Try it yourself: a second delivery of the same job_id arrives with a *different*
// snapshot (someone renamed a product in between). Atomic rename alone would let the
// last writer win silently. Make this guard tell the two cases apart: the same
// snapshot again is a harmless redelivery, a different one is a conflict.
// Check your work: pnpm lab 09 --exercise
import { readFile } from 'node:fs/promises';
import type { ExportMessage } from '@tasks-lab/08-broker-worker';
import { finalArtifactPath, renderArtifactBytes, sha256Hex, writeArtifactAtomically, writeArtifactInPlace } from '../src/artifact.ts';

export class SnapshotConflictError extends Error {
  constructor(
    readonly jobId: string,
    readonly existingSha256: string,
    readonly incomingSha256: string,
  ) {
    super(`job ${jobId} already has an artifact with sha256 ${existingSha256.slice(0, 12)}; this delivery carries a different snapshot (${incomingSha256.slice(0, 12)}) and is refused`);
    this.name = 'SnapshotConflictError';
  }
}

export interface GuardedOutcome {
  path: string;
  sha256: string;
  /** true when the file was already there with these exact bytes and was left alone. */
  reused: boolean;
}

async function existingDigest(path: string): Promise<string | undefined> {
  try {
    return sha256Hex(await readFile(path));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

// Unused until you fill the gaps; listed so the imports you need are already here.
void renderArtifactBytes;
void writeArtifactAtomically;

export async function writeExportOnce(dir: string, message: ExportMessage): Promise<GuardedOutcome> {
  const path = finalArtifactPath(dir, message.job_id);
  // TODO: compute `incoming`, the sha256 of the bytes this delivery would write (render the message, hash it).
  const incoming = '';
  const existing = await existingDigest(path);
  if (existing === incoming) return { path, sha256: existing, reused: true };
  // TODO: when a file already exists with a different digest, throw a SnapshotConflictError instead of writing.
  // TODO: write with the atomic writer (temp file + rename), not in place.
  const written = await writeArtifactInPlace(dir, message);
  return { path: written.path, sha256: written.sha256, reused: false };
}
