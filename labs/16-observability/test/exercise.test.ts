// Grades the try-it-yourself exercise: solutions/duplicate-deliveries.ts by default,
// exercise/duplicate-deliveries.ts with LAB_EXERCISE=student (pnpm lab 16 --exercise).
import { loadExercise } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';

const { judgeDuplicates } = await loadExercise<typeof import('../solutions/duplicate-deliveries.ts')>(import.meta.url, 'duplicate-deliveries.ts');

const JOB = '6f1c2d4e-0000-4000-8000-00000000000a';
const OTHER = '6f1c2d4e-0000-4000-8000-00000000000b';
const line = (phase: string, fields: { message_id?: string; lease_token?: string; attempt?: number; job_id?: string } = {}) => ({ job_id: JOB, phase, ...fields });

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

describe('exercise: did the duplicate deliveries change the result?', () => {
  it('When an event was sent twice and the second claim published, Then the three ids are told apart and the duplicates were harmless [test:exercise-duplicates-harmless]', () => {
    expect(judgeDuplicates(resent, JOB)).toEqual({
      deliveries: 3,
      messageIds: ['event-1', 'event-2'],
      leaseTokens: ['token-a', 'token-b'],
      publications: 1,
      publishedBy: 'token-b',
      harmless: true,
    });
  });

  it('When the publication carries an older claim\'s token, Then it is not harmless: a lost lease finished [test:exercise-old-token-published]', () => {
    const late = resent.map((r) => (r.phase === 'published' && r.job_id === JOB ? { ...r, lease_token: 'token-a' } : r));
    expect(judgeDuplicates(late, JOB)).toMatchObject({ publications: 1, publishedBy: 'token-a', harmless: false });
  });

  it('When two lines say published, Then it is not harmless, and publishedBy is null [test:exercise-two-publications]', () => {
    const twice = [...resent, line('published', { message_id: 'event-1', lease_token: 'token-b', attempt: 2 })];
    expect(judgeDuplicates(twice, JOB)).toMatchObject({ publications: 2, publishedBy: null, harmless: false });
  });
});
