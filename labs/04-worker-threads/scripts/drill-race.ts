// The fault drill: remove the lock and watch increments disappear, then put it back.
//   pnpm drill:race                      2 threads x 100 increments, 1 ms between read and write
//   pnpm drill:race --pause-ms 0         no pause: 100 increments often lose nothing...
//   pnpm drill:race --pause-ms 0 --increments 10000   ...but the race is still there
// The numbers can also come from the environment (RACE_INCREMENTS=1000): see src/options.ts.
import { parseArgs } from 'node:util';
import { runMain } from '@tasks-lab/lab-kit';
import { INCREMENT_RACE_OPTIONS } from '../src/options.ts';
import { runIncrementRace } from '../src/race.ts';

const numberFlag = (text: string | undefined) => (text === undefined ? undefined : Number(text));

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      threads: { type: 'string' },
      increments: { type: 'string' },
      'pause-ms': { type: 'string' },
    },
  });
  const settings = INCREMENT_RACE_OPTIONS.read({
    overrides: {
      threads: numberFlag(values.threads),
      incrementsPerThread: numberFlag(values.increments),
      pauseMs: numberFlag(values['pause-ms']),
    },
  });
  for (const locked of [false, true]) {
    const race = await runIncrementRace({ ...settings, locked });
    console.log(
      `${locked ? 'with the lock:   ' : 'without the lock:'} counter ${race.counter} of ${race.expected} ` +
        `(${race.lost} lost) in ${Math.round(race.elapsedMs)} ms`,
    );
  }
}

runMain(import.meta.url, main);
