// Grades the try-it-yourself exercise: exercise/snapshot-guard.ts with LAB_EXERCISE=student,
// solutions/snapshot-guard.ts otherwise. Real files in a temp folder.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadExercise } from '@tasks-lab/lab-kit';
import { productAt, sampleMessage } from '@tasks-lab/07-choosing-executors';
import { sha256 } from '@tasks-lab/08-broker-worker';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderArtifactBytes } from '../src/artifact.ts';

const { writeExportOnce, SnapshotConflictError } = await loadExercise<typeof import('../solutions/snapshot-guard.ts')>(
  import.meta.url,
  'snapshot-guard.ts',
);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tasks-lab09-exercise-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('writeExportOnce (try it yourself)', () => {
  it('When the same snapshot is delivered twice, Then the second delivery reuses the file with the same digest [test:exercise-same-snapshot-reused]', async () => {
    const message = sampleMessage(3);
    const first = await writeExportOnce(dir, message);
    const second = await writeExportOnce(dir, structuredClone(message));

    expect(first.reused).toBe(false);
    expect(second.reused).toBe(true);
    expect(second.path).toBe(first.path);
    expect(second.sha256).toBe(first.sha256);
    expect(first.sha256).toBe(sha256(renderArtifactBytes(message)));
  });

  it('When a second delivery carries a different title, Then it is refused and the file keeps the first version [test:exercise-different-title-refused]', async () => {
    const message = sampleMessage(3);
    const first = await writeExportOnce(dir, message);
    const renamed = structuredClone(message);
    productAt(renamed, 0).name = 'Renamed after the job was queued';

    await expect(writeExportOnce(dir, renamed)).rejects.toBeInstanceOf(SnapshotConflictError);
    expect(sha256(await readFile(first.path))).toBe(first.sha256);
  });

  it('When a large artifact is written, Then a reader polling the final name never sees a partial file [test:exercise-no-partial-file]', async () => {
    const message = sampleMessage(1500, 40);
    const expected = sha256(renderArtifactBytes(message));
    const target = join(dir, `${message.job_id}.json`);
    let writing = true;
    let torn = 0;
    const reader = (async () => {
      while (writing) {
        const bytes = await readFile(target).catch(() => undefined);
        if (bytes && sha256(bytes) !== expected) torn += 1;
        await new Promise((r) => setImmediate(r));
      }
    })();
    await writeExportOnce(dir, message);
    writing = false;
    await reader;

    expect(torn).toBe(0);
    expect((await readdir(dir)).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });
});
