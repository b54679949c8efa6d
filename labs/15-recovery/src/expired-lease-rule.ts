// The rule the recovery scanner follows for a job nobody looks after any more: lesson 15's
// try-it-yourself exercise. There is one copy of it, and the scanner (src/recovery.ts) calls it:
//
//   solutions/expired-lease.ts   the reference answer: what the lab, its checks and its tests run
//   exercise/expired-lease.ts    your answer, when LAB_EXERCISE=student: `pnpm -w lab 15 --exercise`
//                                sets it for the exercise test, and `LAB_EXERCISE=student pnpm scanner`
//                                runs a scanner on your rule
//
// So a wrong answer shows where it matters: in what the scanner does to real rows.
// lab-kit's loadExercise picks the file (it resolves `../<exercise|solutions>/<file>` from this
// file, as it does from a test's). The import is dynamic, so an unfinished exercise/ file is
// only loaded when you ask for it.
import { exerciseTarget, loadExercise } from '@tasks-lab/lab-kit';

type ExpiredLeaseModule = typeof import('../solutions/expired-lease.ts');
export type { ExpiredLease, ExpiredLeaseDecision } from '../solutions/expired-lease.ts';

/** Which file the scanner's rule comes from in this process, relative to the lab. */
export const EXPIRED_LEASE_RULE_FILE = `${exerciseTarget()}/expired-lease.ts`;

/** The scanner's rule: the reference answer, or the student's with LAB_EXERCISE=student. */
export const { decideExpiredLease } = await loadExercise<ExpiredLeaseModule>(import.meta.url, 'expired-lease.ts');
