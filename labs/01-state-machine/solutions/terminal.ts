// Try it yourself (lesson 01): give every job view a `terminal` flag, derived from the
// state machine instead of stored, so it can never disagree with the job's state.
// Graded by test/exercise.test.ts: `pnpm -w lab 01 --exercise` runs it on exercise/, `--solution` on solutions/.
import { ALLOWED_TRANSITIONS, type ExportJob, type JobState } from '../src/store.ts';

/** For each state, the states a job may move to next (the shape of ALLOWED_TRANSITIONS). */
export type TransitionTable = Readonly<Record<JobState, readonly JobState[]>>;

/** What the API shows for a job: the record plus the derived flag. */
export type JobWithTerminal = ExportJob & { terminal: boolean };

/** True when `state` has no way out in `transitions`: nothing can change the job any more. */
export function isTerminalState(state: JobState, transitions: TransitionTable = ALLOWED_TRANSITIONS): boolean {
  return transitions[state].length === 0;
}

/** A copy of `job` with `terminal` computed now; the job itself is left as it was. */
export function describeJob(job: ExportJob, transitions: TransitionTable = ALLOWED_TRANSITIONS): JobWithTerminal {
  return { ...job, terminal: isTerminalState(job.state, transitions) };
}
