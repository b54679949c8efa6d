// The fault drill by hand: `pnpm drill:kill-worker`. Starts a pool of 2 worker
// processes, starts a 12-row export, SIGKILLs one worker after the first row, and
// prints what the batch, the job record and the pool do about it.
import { runKillDrill } from './checks.ts';

const drill = await runKillDrill({ log: (line) => console.log(line) });
console.log(drill.returned ? 'UNEXPECTED: the batch returned scores after losing a worker' : 'the batch reported no scores: all or nothing');
