// What a row of the failure matrix is in code: its words (catalogue.ts), a scenario that runs
// it for real and gathers evidence, and a PURE judge that decides from that evidence alone.
// The scenario never decides and the judge never runs anything (lesson 09's split): the same
// judge passes the lab and fails each broken variant the can-fail tests swap in.
import { outcome, type CheckOutcome } from '@tasks-lab/lab-kit';
import { matrixCase, type MatrixCase } from './catalogue.ts';
import type { EvidenceRecord } from './evidence.ts';
import type { RowLab } from './harness.ts';
import type { MatrixParts } from './parts.ts';

/** What a row's scenario hands back; the runner adds the recorder's states, deliveries and steps. */
export interface RowRun<D> {
  /** The row's job (the first accepted one, when it submits several). */
  jobId: string | null;
  details: D;
  /** at_ms the recovery is measured from and to (recovery_seconds is null when either is missing). */
  recovery?: { fromMs: number | undefined; toMs: number | undefined };
  /** The job's sends (outbox send_attempts); null or absent when no publisher ran. */
  sends?: number | null;
  artifactSha256?: string | null;
  /** A worker ran: duplicate deliveries are counted (otherwise null). */
  workerRan?: boolean;
}

export interface MatrixRow extends MatrixCase {
  scenario(lab: RowLab): Promise<RowRun<unknown>>;
  judge(evidence: EvidenceRecord<unknown>): CheckOutcome;
  /** Why the row cannot run with these parts (a script that is missing), or undefined. */
  cannotRun?(parts: MatrixParts): string | undefined;
}

export interface RowSpec<D> {
  scenario(lab: RowLab): Promise<RowRun<D>>;
  judge(evidence: EvidenceRecord<D>): CheckOutcome;
  cannotRun?(parts: MatrixParts): string | undefined;
}

/** A row: the catalogue's words for `id`, and its scenario and judge. */
export function defineRow<D>(id: string, spec: RowSpec<D>): MatrixRow {
  return {
    ...matrixCase(id),
    scenario: spec.scenario,
    // The runner built this record from this row's own scenario: its details are D.
    judge: (evidence) => spec.judge(evidence as EvidenceRecord<D>),
    cannotRun: spec.cannotRun,
  };
}

/**
 * A judge's notebook: each finding says what was seen, and "(EXPECTED …)" when it is not what
 * the row promises. One finding that fails fails the row. Pure: it only collects text.
 */
export class Findings {
  readonly #parts: string[] = [];
  #ok = true;

  /** A finding that must hold. */
  expect(holds: boolean, seen: string, expected: string): this {
    this.#parts.push(holds ? seen : `${seen} (EXPECTED ${expected})`);
    this.#ok &&= holds;
    return this;
  }

  /** A fact that decides nothing (an honest remark: the documented boundary of a row). */
  note(text: string): this {
    this.#parts.push(text);
    return this;
  }

  get ok(): boolean {
    return this.#ok;
  }

  outcome(): CheckOutcome {
    return outcome(this.#ok, this.#parts.join('; '));
  }
}
