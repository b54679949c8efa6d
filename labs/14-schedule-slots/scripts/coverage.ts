// Lesson 14's checklist from the course, in our words, and what grades each item here
// (`pnpm lab coverage 14`; the table in docs/14-schedule-slots.md is written from this).
import { coverage } from '@tasks-lab/lab-kit';

export const COVERAGE = coverage([
  // Learning checks
  {
    section: 'learning-check',
    item: 'A slot key has at most one job and one first outbox event',
    gradedBy: [
      'check:same-slot-twice-one-job',
      'check:concurrent-same-slot-one-job',
      'test:schedule-concurrent-one-job',
    ],
  },
  {
    section: 'learning-check',
    item: 'The scheduler only sends the signal; the export is made by the worker and publisher chain',
    gradedBy: ['check:signal-on-fast-export-on-bulk', 'test:schedule-event-on-bulk'],
  },
  {
    section: 'learning-check',
    item: 'Slots are named in UTC, and minutes missed while the scheduler was down are not passed off as run',
    gradedBy: [
      'test:execution-slot-utc-offset',
      'test:execution-slot-zone-required',
      'check:no-backfill-after-downtime',
    ],
  },
  {
    section: 'learning-check',
    item: 'One simulated signal handled across a minute boundary makes two slots under the course label, recorded as different from same-slot merging',
    gradedBy: [
      'check:redelivered-signal-course-label-two-slots',
      'test:redelivery-course-label-two-slots',
      'test:redelivery-course-label-not-one-job',
    ],
  },
  // Implementation decisions
  {
    section: 'implementation-decision',
    item: "The database's unique key merges the jobs of one slot; under the course's label a signal redelivered across minutes is not promised a single job",
    gradedBy: [
      'check:concurrent-same-slot-one-job',
      'check:redelivered-signal-course-label-two-slots',
      'check:redelivered-signal-planned-key-one-slot',
    ],
  },
  {
    section: 'implementation-decision',
    item: 'The time zone, the slot and what happens to missed runs are defined, never left to the local time',
    gradedBy: ['test:execution-slot-zone-required', 'test:http-at-zone-required', 'check:no-backfill-after-downtime'],
  },
  {
    section: 'implementation-decision',
    item: 'How slow runs may overlap and how much catch-up is allowed are controlled separately',
    docOnly:
      "the lab has one catch-up rule, BullMQ's, and it is not a setting: after downtime ONE overdue run stands for all the missed planned times (check:no-backfill-after-downtime shows it); overlap is left to lesson 11's lease per job. A catch-up limit and an overlap policy per export type, set separately, are described in the doc, not built",
  },
  {
    section: 'implementation-decision',
    item: 'Fixed planned times and catch-up need a persisted next_due_at cursor with a unique (schedule, scheduled_at) slot, not advanced when admission refuses',
    docOnly:
      'the stronger design is described in the doc ("The stronger design the course points to"), not built; the lab keys slots on the planned time BullMQ already keeps',
  },
  // The drill
  {
    section: 'drill',
    item: "Call one slot twice, handle one simulated signal across a minute boundary, stop the scheduler for two intervals: merged, a new slot, no catch-up run per missed interval. Here the stopped part is the fast worker (it drives BullMQ's job scheduler), for 3.5 intervals of 1 s, and the check expects exactly ONE overdue slot for all the planned times it missed",
    gradedBy: [
      'check:same-slot-twice-one-job',
      'check:redelivered-signal-course-label-two-slots',
      'check:no-backfill-after-downtime',
    ],
  },
  // Acceptance
  {
    section: 'acceptance',
    item: 'A repeated scheduling never creates two exports for one slot',
    gradedBy: [
      'check:same-slot-twice-one-job',
      'check:concurrent-same-slot-one-job',
      'check:duplicate-slot-while-full-already-scheduled',
      'check:redelivered-signal-planned-key-one-slot',
    ],
  },
  {
    section: 'acceptance',
    item: 'The scheduler is neither the executor nor the source of truth of business state',
    gradedBy: ['check:signal-on-fast-export-on-bulk', 'check:one-schedule-per-id'],
  },
  {
    section: 'acceptance',
    item: 'The catch-up rule after downtime can be stated, and is shown',
    gradedBy: ['check:no-backfill-after-downtime'],
  },
  {
    section: 'acceptance',
    item: 'Merging by execution minute is not passed off as exactly-once for the original signal; the cross-minute behaviour has experimental evidence',
    gradedBy: [
      'check:redelivered-signal-course-label-two-slots',
      'test:redelivery-course-label-not-one-job',
      'check:redelivered-signal-planned-key-one-slot',
    ],
  },
  // Troubleshooting
  {
    section: 'troubleshooting',
    item: 'Two schedulers double the periodic runs: run one, and let the slot table stop duplicate business jobs',
    gradedBy: ['check:one-schedule-per-id', 'check:concurrent-same-slot-one-job'],
  },
  {
    section: 'troubleshooting',
    item: "Periodic runs are assumed not to overlap: a slot stops a duplicate of one period, not two periods' runs at once; keep the job lease and decide skip, merge or limit per export type",
    docOnly:
      'the lab runs one bulk worker with concurrency 1, so consecutive periods never overlap in it; the doc states the policy choice, which the course leaves to the business',
  },
  // The exercise
  {
    section: 'exercise',
    item: 'Two producers calling one new slot key at once: only one gets a job',
    gradedBy: ['test:exercise-same-slot-twice', 'test:exercise-concurrent-one-job'],
  },
]);
