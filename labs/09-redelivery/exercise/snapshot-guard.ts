// Try it yourself: a second delivery of the same job_id arrives with a *different*
// snapshot (someone renamed a product in between). Atomic rename alone would let the
// last writer win silently. Make this guard tell the two cases apart: the same
// snapshot again is a harmless redelivery, a different one is a conflict.
// Check your work: pnpm -w lab 09 --exercise
import type { ExportMessage } from '@tasks-lab/07-choosing-executors';
import { sha256 } from '@tasks-lab/08-broker-worker';
import {
  existingDigest,
  finalArtifactPath,
  renderArtifactBytes,
  writeArtifactAtomically,
  writeArtifactInPlace,
} from '../src/artifact.ts';
import { SnapshotConflictError, type GuardedOutcome } from '../src/snapshot-conflict.ts';

// The test looks for the error next to your function.
export { SnapshotConflictError };

// Unused until you fill the gaps; listed so the imports you need are already here.
void sha256;
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
