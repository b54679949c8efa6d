// The entry point of one pool worker process: `node --import tsx scoring-worker.ts <scorerUrl>`.
// It is a fresh Node process: nothing of the parent's memory is here, only what it
// imports itself and the messages it receives.
import type { FromScoringWorker, ToScoringWorker } from './pool-messages.ts';
import { DEFAULT_SCORER_URL, loadScorer } from './scoring.ts';

const scorer = await loadScorer(process.argv[2] ?? DEFAULT_SCORER_URL);

function reply(message: FromScoringWorker): void {
  process.send?.(message);
}

function handle(message: ToScoringWorker): FromScoringWorker {
  try {
    if (message.kind === 'echo') {
      const keys = message.payload && typeof message.payload === 'object' ? Object.keys(message.payload) : [];
      return { kind: 'echoed', taskId: message.taskId, payload: message.payload, keys };
    }
    return { kind: 'scored', taskId: message.taskId, result: scorer.scoreExportRow(message.row, message.rounds) };
  } catch (err) {
    return { kind: 'failed', taskId: message.taskId, message: err instanceof Error ? err.message : String(err) };
  }
}

process.on('message', (message: ToScoringWorker) => reply(handle(message)));
// The channel closes when the parent exits or closes the pool: leave rather than linger as an orphan.
process.on('disconnect', () => process.exit(0));
reply({ kind: 'ready', pid: process.pid });
