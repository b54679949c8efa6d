// Try it yourself: a second delivery of the same job_id arrives with a *different*
// snapshot (someone renamed a product in between). Atomic rename alone would let the
// last writer win silently. This guard makes the broken rule visible instead: the same
// snapshot again is a harmless redelivery, a different one is a conflict.
import { readFile } from 'node:fs/promises';
import type { ExportMessage } from '@tasks-lab/08-broker-worker';
import { finalArtifactPath, renderArtifactBytes, sha256Hex, writeArtifactAtomically } from '../src/artifact.ts';

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

export async function writeExportOnce(dir: string, message: ExportMessage): Promise<GuardedOutcome> {
  const path = finalArtifactPath(dir, message.job_id);
  // The digest of what this delivery would write: the render is deterministic, so this is the file's identity.
  const incoming = sha256Hex(renderArtifactBytes(message));
  const existing = await existingDigest(path);
  if (existing === incoming) return { path, sha256: existing, reused: true };
  if (existing !== undefined) throw new SnapshotConflictError(message.job_id, existing, incoming);
  const written = await writeArtifactAtomically(dir, message);
  return { path: written.path, sha256: written.sha256, reused: false };
}
