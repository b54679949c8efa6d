// `pnpm drill:stopped-worker`: the lesson's fault drill on its own. It starts a worker,
// kills it (SIGKILL), runs `pnpm submit --timeout-s 2` against the empty queue, then
// starts a new worker and watches the same job id complete. Ctrl-C stops the drill
// and the processes it started.
import { ensureInfra } from '@tasks-lab/infra';
import { findCheck, formatResult, onShutdown, runMain, SECOND } from '@tasks-lab/lab-kit';
import { buildChecks } from './checks.ts';

runMain(import.meta.url, async () => {
  await ensureInfra({ services: ['redis'], log: (line) => console.log(`[infra] ${line}`) });
  const drill = findCheck(buildChecks(), 'drill-stopped-worker');
  const interrupted = new AbortController();
  const started = Date.now();
  const running = Promise.resolve(drill.run(interrupted.signal));
  // Aborting closes everything the drill started; the exit waits for that, briefly.
  onShutdown(
    async () => {
      interrupted.abort(new Error('interrupted'));
      await running.catch(() => {});
    },
    { graceMs: 10 * SECOND },
  );
  const result = await running;
  console.log(formatResult({ id: drill.id, name: drill.name, ...result, ms: Date.now() - started }));
  return result.ok ? 0 : 1;
});
