// Lesson 16's failure matrix as checks: ONE check per row of the course's matrix (step 4), plus
// the closing fault-free regression, each id `matrix-<row id>`. A check's scenario runs its row
// for real (src/matrix/rows.ts) and writes the row's evidence record, its SVG timeline and the
// run's summary.md (into EVIDENCE_DIR, or deps.matrixOutDir); its judge is the row's own pure
// judge of that evidence. The observed text starts with the row's recovery time, so `pnpm lab
// 16` prints one line per row with it:
//
//   recovered in 2.41 s (kill -> succeeded): worker process 4242 claimed ...; evidence evidence/worker-killed-holding-lease.json
//   no recovery (a refusal): 2x 202; 3x 503 ...; evidence evidence/queue-full.json
//
// buildMatrixChecks(deps) starts nothing; deps swap a broken part in for the can-fail tests.
import { defineCheck, outcome, SECOND, type Check } from '@tasks-lab/lab-kit';
import type { ObservabilityOptionValues } from '../src/options.ts';
import type { EvidenceRecord } from '../src/matrix/evidence.ts';
import type { MatrixParts } from '../src/matrix/parts.ts';
import { MATRIX_ROWS, type MatrixRow } from '../src/matrix/rows.ts';
import { judgeRecord, MatrixSession, recoveryText, type RowFiles } from '../src/matrix/run-matrix.ts';
import { displayPath } from '../src/display-path.ts';

export interface MatrixCheckDeps {
  /** Broken parts (the can-fail tests); the rest stay the lab's. */
  matrixParts?: Partial<MatrixParts>;
  /** Where the evidence goes. @defaultValue EVIDENCE_DIR */
  matrixOutDir?: string;
  /** @defaultValue matrixTimings(): the short timings, not the environment's */
  matrixTimings?: ObservabilityOptionValues;
}

/** A row's time limit: its waits (the lease, the threshold, a worker process starting) and set-up, with room. */
const ROW_TIMEOUT_MS: Record<string, number> = {
  'worker-killed-holding-lease': 60 * SECOND,
  'attempts-exhausted': 45 * SECOND,
};
const DEFAULT_TIMEOUT_MS = 30 * SECOND;

/** What a matrix check judges: the row's record and where it was written. */
export interface MatrixEvidence {
  record: EvidenceRecord<unknown>;
  files: RowFiles;
}

/** The check's judgement: the row's pure judge, its recovery first, the evidence file last. */
export function judgeMatrixEvidence(row: MatrixRow, evidence: MatrixEvidence) {
  const verdict = judgeRecord(row, evidence.record);
  return outcome(
    verdict.ok,
    `${recoveryText(evidence.record)}: ${verdict.observed}; evidence ${displayPath(evidence.files.json)}`,
  );
}

export function buildMatrixChecks(deps: MatrixCheckDeps = {}): Check[] {
  // One session for the checks built together: the folder is cleared once, the summary lists this run's rows.
  let session: MatrixSession | undefined;
  const sessionOf = () =>
    (session ??= new MatrixSession({
      outDir: deps.matrixOutDir,
      timings: deps.matrixTimings,
      parts: deps.matrixParts,
    }));
  return MATRIX_ROWS.map((row) =>
    defineCheck<MatrixEvidence>({
      id: `matrix-${row.id}`,
      name: `Failure matrix, ${row.kind === 'regression' ? 'the closing regression' : "the course's row"} "${row.title}": ${row.expected}`,
      timeoutMs: ROW_TIMEOUT_MS[row.id] ?? DEFAULT_TIMEOUT_MS,
      scenario: (signal) => sessionOf().run(row, signal),
      judge: (evidence) => judgeMatrixEvidence(row, evidence),
    }),
  );
}
