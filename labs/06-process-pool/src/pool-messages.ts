// The messages between the pool (parent) and its worker processes. They are the
// only thing that crosses the process boundary: plain data, copied on the way.
import type { ExportRow, RowScore } from './scoring.ts';

/** Parent -> worker: score one row. */
export interface ScoreRequest {
  kind: 'score';
  taskId: number;
  row: ExportRow;
  rounds: number;
}

/** Parent -> worker: send this back unchanged, to show what actually arrived on the other side. */
export interface EchoRequest {
  kind: 'echo';
  taskId: number;
  payload: unknown;
}

export type ToScoringWorker = ScoreRequest | EchoRequest;

export type FromScoringWorker =
  | { kind: 'ready'; pid: number }
  | { kind: 'scored'; taskId: number; result: RowScore }
  | { kind: 'echoed'; taskId: number; payload: unknown; keys: string[] }
  | { kind: 'failed'; taskId: number; message: string };

/**
 * Where a worker process may be made to fail on purpose (LAB_FAULTS, lab-kit's fault
 * points). `while-scoring`: the worker has taken a row and not answered yet, so a
 * crash there loses the row it holds, as an out-of-memory kill mid-row would.
 */
export const WORKER_FAULT_POINTS = ['while-scoring'] as const;
export type WorkerFaultPoint = (typeof WORKER_FAULT_POINTS)[number];
