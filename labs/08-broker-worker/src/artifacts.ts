// The worker's output: one JSON file per export, named after the business job id.
// The id arrives from the network, so it is checked as a UUID before it becomes
// part of a path: `../../etc/passwd` is refused, and no file is written.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jobIdSchema } from '@tasks-lab/01-state-machine';

/** This lab's folder; artifacts/ under it is git-ignored. */
export const LAB_DIR = fileURLToPath(new URL('..', import.meta.url));
export const ARTIFACTS_DIR = join(LAB_DIR, 'artifacts');

/** A malformed job id: refused before it touches the file system. */
export class InvalidArtifactIdError extends Error {
  constructor(readonly jobId: string) {
    super(`refusing to write an artifact: job id ${JSON.stringify(jobId.slice(0, 80))} is not a UUID`);
    this.name = 'InvalidArtifactIdError';
  }
}

/**
 * One export, one spelling of its id. A UUID's hex digits may come in upper or lower
 * case and both name the same export; the lower-case form is the one used as the BullMQ
 * job id, in Redis keys and in file names. (It does not check the id: see safeArtifactId.)
 */
export function canonicalJobId(jobId: string): string {
  return jobId.toLowerCase();
}

/** The canonical (lower-case) UUID, or InvalidArtifactIdError (lesson 01's id schema decides). */
export function safeArtifactId(jobId: string): string {
  const parsed = jobIdSchema.safeParse(jobId);
  if (!parsed.success) throw new InvalidArtifactIdError(jobId);
  return canonicalJobId(parsed.data);
}

export function artifactPath(jobId: string, artifactsDir = ARTIFACTS_DIR): string {
  return join(artifactsDir, `${safeArtifactId(jobId)}.json`);
}

/** What the worker returns; BullMQ stores it in the job hash as `returnvalue`. */
export interface ArtifactResult {
  job_id: string;
  /** Relative to the lab folder, like the course's `artifacts/<id>.json`. */
  path: string;
  rows: number;
  /** Of the file's bytes, so a reader can tell it got the same file. */
  sha256: string;
}

export interface ArtifactOptions {
  /** @defaultValue ARTIFACTS_DIR (labs/08-broker-worker/artifacts) */
  artifactsDir?: string;
}

/** Writes the snapshot rows as JSON to artifacts/<uuid>.json and describes the file. */
export function writeArtifact(jobId: string, rows: readonly unknown[], options: ArtifactOptions = {}): ArtifactResult {
  const artifactsDir = options.artifactsDir ?? ARTIFACTS_DIR;
  const target = artifactPath(jobId, artifactsDir); // validates first: a bad id never reaches mkdir
  mkdirSync(artifactsDir, { recursive: true });
  const bytes = Buffer.from(JSON.stringify(rows), 'utf8');
  writeFileSync(target, bytes);
  return {
    job_id: safeArtifactId(jobId),
    path: relative(LAB_DIR, target),
    rows: rows.length,
    sha256: sha256(bytes),
  };
}

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
