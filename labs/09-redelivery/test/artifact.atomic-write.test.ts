import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { productAt, sampleMessage, type ExportMessage } from '@tasks-lab/07-choosing-executors';
import { sha256 } from '@tasks-lab/08-broker-worker';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { finalArtifactPath, isTempArtifact, renderArtifactBytes, writeArtifactAtomically } from '../src/artifact.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tasks-lab09-unit-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('renderArtifactBytes', () => {
  it('When the same snapshot arrives with its keys in another order, Then the bytes and digest are identical [test:same-snapshot-same-bytes]', () => {
    const message = sampleMessage(2);
    const reordered = {
      products: message.products.map((p) => ({
        price_cents: p.price_cents,
        is_active: p.is_active,
        description: p.description,
        name: p.name,
        id: p.id,
      })),
      job_id: message.job_id,
    } as ExportMessage;
    expect(sha256(renderArtifactBytes(reordered))).toBe(sha256(renderArtifactBytes(message)));
  });

  it('When one product field changes, Then the digest changes [test:digest-follows-snapshot]', () => {
    const message = sampleMessage(2);
    const changed = structuredClone(message);
    productAt(changed, 1).price_cents += 1;
    expect(sha256(renderArtifactBytes(changed))).not.toBe(sha256(renderArtifactBytes(message)));
  });
});

describe('writeArtifactAtomically', () => {
  it('When a job is written twice, Then there is one file named after the job id, with the reported digest, and no temp file [test:one-file-per-business-id]', async () => {
    const message = sampleMessage(3);
    const first = await writeArtifactAtomically(dir, message);
    const second = await writeArtifactAtomically(dir, message);

    expect(first.path).toBe(finalArtifactPath(dir, message.job_id));
    expect(second).toEqual(first);
    expect(await readdir(dir)).toEqual([`${message.job_id}.json`]);
    expect(sha256(await readFile(first.path))).toBe(first.sha256);
  });

  it('When two deliveries of one job carry different snapshots, Then the last one wins: rename makes each version whole, not the right one [test:rename-last-writer-wins]', async () => {
    const message = sampleMessage(2);
    const edited = structuredClone(message);
    productAt(edited, 0).name = 'Renamed after the job was queued';
    await writeArtifactAtomically(dir, message);
    const last = await writeArtifactAtomically(dir, edited);

    // No error, one file, and it holds the edited snapshot: nothing noticed the conflict.
    expect(await readdir(dir)).toEqual([`${message.job_id}.json`]);
    expect(sha256(await readFile(last.path))).toBe(sha256(renderArtifactBytes(edited)));
  });

  it('When the rename fails, Then the temp file is removed and the error is raised [test:failed-rename-cleans-up]', async () => {
    const message = sampleMessage(1);
    // A directory where the final file should go makes rename() fail.
    await mkdir(finalArtifactPath(dir, message.job_id));
    await expect(writeArtifactAtomically(dir, message)).rejects.toThrow();
    expect((await readdir(dir)).filter(isTempArtifact)).toEqual([]);
    expect((await stat(finalArtifactPath(dir, message.job_id))).isDirectory()).toBe(true);
  });
});

describe('writeArtifactAtomically with a bad id', () => {
  it('When a message in Redis carries a job_id that is not a UUID, Then nothing is written and the error names the id', async () => {
    const message = { ...sampleMessage(1), job_id: '../../escape' } as ExportMessage;
    await expect(writeArtifactAtomically(dir, message)).rejects.toThrow(/escape/);
    expect(await readdir(dir).catch(() => [])).toEqual([]);
  });
});
