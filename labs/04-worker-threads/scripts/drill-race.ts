// The fault drill: remove the lock and watch increments disappear, then put it back.
//   pnpm drill:race                      2 threads x 100 increments, 1 ms between read and write
//   pnpm drill:race --pause-ms 0         no pause: 100 increments often lose nothing...
//   pnpm drill:race --pause-ms 0 --increments 10000   ...but the race is still there
import { parseArgs } from 'node:util';
import { INCREMENT_RACE_DEFAULTS } from '../src/options.ts';
import { runIncrementRace } from '../src/race.ts';

const { values } = parseArgs({
  options: {
    threads: { type: 'string', default: String(INCREMENT_RACE_DEFAULTS.threads) },
    increments: { type: 'string', default: String(INCREMENT_RACE_DEFAULTS.incrementsPerThread) },
    'pause-ms': { type: 'string', default: String(INCREMENT_RACE_DEFAULTS.pauseMs) },
  },
});

for (const locked of [false, true]) {
  const race = await runIncrementRace({
    locked,
    threads: Number(values.threads),
    incrementsPerThread: Number(values.increments),
    pauseMs: Number(values['pause-ms']),
  });
  console.log(
    `${locked ? 'with the lock:   ' : 'without the lock:'} counter ${race.counter} of ${race.expected} ` +
      `(${race.lost} lost) in ${Math.round(race.elapsedMs)} ms`,
  );
}
