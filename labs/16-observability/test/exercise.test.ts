// Grades the try-it-yourself exercise: solutions/duplicate-deliveries.ts by default,
// exercise/duplicate-deliveries.ts with LAB_EXERCISE=student (pnpm lab 16 --exercise).
// The artifacts are real files in a scratch folder, written the way lesson 11's worker writes them.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadExercise } from '@tasks-lab/lab-kit';
import { renderArtifact } from '@tasks-lab/11-mysql-leases';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const { judgeDuplicates } = await loadExercise<typeof import('../solutions/duplicate-deliveries.ts')>(
  import.meta.url,
  'duplicate-deliveries.ts',
);

const JOB = '6f1c2d4e-0000-4000-8000-00000000000a';
const OTHER = '6f1c2d4e-0000-4000-8000-00000000000b';
const line = (
  phase: string,
  fields: { message_id?: string; lease_token?: string; attempt?: number; job_id?: string } = {},
) => ({ job_id: JOB, phase, ...fields });

// A resent event: two deliveries of the same job; the first claim's lease expired, a second claim won.
const resent = [
  line('dispatched', { message_id: 'event-1' }),
  line('received', { message_id: 'event-1' }),
  line('claimed', { message_id: 'event-1', lease_token: 'token-a', attempt: 1 }),
  { job_id: OTHER, phase: 'published', lease_token: 'token-x' },
  line('dispatched', { message_id: 'event-2' }),
  line('received', { message_id: 'event-2' }),
  line('claimed', { message_id: 'event-2', lease_token: 'token-b', attempt: 2 }),
  line('published', { message_id: 'event-2', lease_token: 'token-b', attempt: 2 }),
  line('received', { message_id: 'event-1' }),
  line('not-claimed', { message_id: 'event-1' }),
];

/** The job's frozen products, as export_jobs.snapshot holds them. */
const SNAPSHOT = [
  { id: 1, sku: 'SKU-0001', name: 'Desk lamp', price_cents: 2599 },
  { id: 2, sku: 'SKU-0002', name: 'Notebook', price_cents: 450 },
];
/** The published file's name: lesson 11's `<job id>.<token>.json`, the second claim's. */
const RESULT = `${JOB}.token-b.json`;

let artifacts: string;
beforeAll(async () => {
  artifacts = await mkdtemp(join(tmpdir(), 'tasks-lab16-exercise-'));
  await writeFile(join(artifacts, RESULT), renderArtifact(SNAPSHOT));
});
afterAll(async () => {
  if (artifacts) await rm(artifacts, { recursive: true, force: true });
});

const published = { result_ref: RESULT, snapshot: SNAPSHOT };

describe('exercise: did the duplicate deliveries change the result?', () => {
  it('When an event was sent twice and the second claim published its file of the snapshot, Then the three ids are told apart and the duplicates were harmless [test:exercise-duplicates-harmless]', async () => {
    expect(await judgeDuplicates(resent, JOB, published, artifacts)).toEqual({
      deliveries: 3,
      messageIds: ['event-1', 'event-2'],
      leaseTokens: ['token-a', 'token-b'],
      publications: 1,
      publishedBy: 'token-b',
      resultMatchesSnapshot: true,
      harmless: true,
    });
  });

  it("When the publication carries an older claim's token, Then it is not harmless: a lost lease finished [test:exercise-old-token-published]", async () => {
    const late = resent.map((r) =>
      r.phase === 'published' && r.job_id === JOB ? { ...r, lease_token: 'token-a' } : r,
    );
    expect(await judgeDuplicates(late, JOB, published, artifacts)).toMatchObject({
      publications: 1,
      publishedBy: 'token-a',
      harmless: false,
    });
  });

  it('When two lines say published, Then it is not harmless, and publishedBy is null [test:exercise-two-publications]', async () => {
    const twice = [...resent, line('published', { message_id: 'event-1', lease_token: 'token-b', attempt: 2 })];
    expect(await judgeDuplicates(twice, JOB, published, artifacts)).toMatchObject({
      publications: 2,
      publishedBy: null,
      harmless: false,
    });
  });

  it('When result_ref names a file with the same products written another way, Then it equals the snapshot by value [test:exercise-result-compared-by-value]', async () => {
    const name = `${JOB}.token-b-reformatted.json`;
    const reordered = SNAPSHOT.map((row) => Object.fromEntries(Object.entries(row).reverse()));
    await writeFile(join(artifacts, name), JSON.stringify(reordered, null, 4));
    expect(await judgeDuplicates(resent, JOB, { result_ref: name, snapshot: SNAPSHOT }, artifacts)).toMatchObject({
      publications: 1,
      publishedBy: 'token-b',
      resultMatchesSnapshot: true,
      harmless: true,
    });
  });

  it('When the file result_ref names holds other products, is missing, or there is no result_ref, Then the result does not match and the duplicates are not judged harmless [test:exercise-result-equals-snapshot]', async () => {
    const changed = `${JOB}.token-b-changed.json`;
    await writeFile(
      join(artifacts, changed),
      renderArtifact(SNAPSHOT.map((row, i) => (i === 0 ? { ...row, price_cents: row.price_cents + 1 } : row))),
    );
    for (const result_ref of [changed, `${JOB}.token-b-missing.json`, null]) {
      expect(
        await judgeDuplicates(resent, JOB, { result_ref, snapshot: SNAPSHOT }, artifacts),
        `result_ref ${result_ref}`,
      ).toMatchObject({ publications: 1, publishedBy: 'token-b', resultMatchesSnapshot: false, harmless: false });
    }
  });
});
