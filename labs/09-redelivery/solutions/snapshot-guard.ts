// Try it yourself: a second delivery of the same job_id arrives with a *different*
// snapshot (someone renamed a product in between). Atomic rename alone would let the
// last writer win silently. This guard makes the broken rule visible instead: the same
// snapshot again is a harmless redelivery, a different one is a conflict.
import type { ExportMessage } from '@tasks-lab/07-choosing-executors';
import { sha256 } from '@tasks-lab/08-broker-worker';
import { existingDigest, finalArtifactPath, renderArtifactBytes, writeArtifactAtomically } from '../src/artifact.ts';
import { SnapshotConflictError, type GuardedOutcome } from '../src/snapshot-conflict.ts';

// The test looks for the error next to the function.
export { SnapshotConflictError };

export async function writeExportOnce(dir: string, message: ExportMessage): Promise<GuardedOutcome> {
  const path = finalArtifactPath(dir, message.job_id);
  // The digest of what this delivery would write: the render is deterministic, so this is the file's identity.
  const incoming = sha256(renderArtifactBytes(message));
  const existing = await existingDigest(path);
  if (existing === incoming) return { path, sha256: existing, reused: true };
  if (existing !== undefined) throw new SnapshotConflictError(message.job_id, existing, incoming);
  const written = await writeArtifactAtomically(dir, message);
  return { path: written.path, sha256: written.sha256, reused: false };
}
