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
