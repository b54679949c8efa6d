// The entry point of one pool worker process: `node --import tsx scoring-worker.ts <scorerUrl>`.
// It is a fresh Node process: nothing of the parent's memory is here, only what it
// imports itself and the messages it receives.
import { errorMessage, faultPoints, idempotent, onShutdown, runMain, type FaultPoints } from '@tasks-lab/lab-kit';
import {
  WORKER_FAULT_POINTS,
  type FromScoringWorker,
  type ToScoringWorker,
  type WorkerFaultPoint,
} from './pool-messages.ts';
import { DEFAULT_SCORER_URL, loadScorer, type ScorerModule } from './scoring.ts';

function reply(message: FromScoringWorker): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  // Read once at start-up: a LAB_FAULTS rule naming an unknown point stops the worker here.
  const faults = faultPoints(WORKER_FAULT_POINTS);
  const scorer = await loadScorer(process.argv[2] ?? DEFAULT_SCORER_URL);
  const onMessage = (message: ToScoringWorker) => void handle(scorer, faults, message).then(reply);
  process.on('message', onMessage);
  // The channel closes when the parent exits or closes the pool: leave rather than linger as an orphan.
  process.on('disconnect', () => process.exit(0));
  // The pool's close() sends SIGTERM: take no more rows and exit. That is a worker's normal
  // end, so it prints nothing (the parent's output would fill with one line per worker).
  onShutdown(
    idempotent(async () => void process.off('message', onMessage)),
    { log: () => {} },
  );
  reply({ kind: 'ready', pid: process.pid });
}

async function handle(
  scorer: ScorerModule,
  faults: FaultPoints<WorkerFaultPoint>,
  message: ToScoringWorker,
): Promise<FromScoringWorker> {
  try {
    if (message.kind === 'echo') {
      const keys = message.payload && typeof message.payload === 'object' ? Object.keys(message.payload) : [];
      return { kind: 'echoed', taskId: message.taskId, payload: message.payload, keys };
    }
    await faults.hit('while-scoring');
    return { kind: 'scored', taskId: message.taskId, result: scorer.scoreExportRow(message.row, message.rounds) };
  } catch (err) {
    return { kind: 'failed', taskId: message.taskId, message: errorMessage(err) };
  }
}

runMain(import.meta.url, main);
