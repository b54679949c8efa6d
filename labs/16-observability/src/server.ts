// `pnpm start`: lesson 16's API as a real process (PORT defaults to 8000): lesson 15's (lesson
// 13's runServerProcess: infra, migrations, one pool, one Redis client, a clean stop), on lab
// 16's database, with the trace context, the `accepted` phase lines, GET /metrics and GET
// /monitoring. /metrics counts the BullMQ keys under BULLMQ_PREFIX with the server's Redis client.
//
//   pnpm start
//   curl -i -X POST localhost:8000/exports -H 'content-type: application/json' \
//        -H 'traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' -d '{"product_ids":[1,2]}'
//   curl localhost:8000/metrics          the Prometheus text
//   curl localhost:8000/monitoring       the course's six queries as JSON
//   LOG_LEVEL=warn pnpm start            no `accepted` lines
import { runMain } from '@tasks-lab/lab-kit';
import { serverOf } from '@tasks-lab/11-mysql-leases';
import { runServerProcess } from '@tasks-lab/13-admission';
import { SHUTDOWN_GRACE_MS } from '@tasks-lab/15-recovery';
import { createApp } from './app.ts';
import { describeTimings, LAB, readObservabilityOptions, SERVER_PROCESS_OPTIONS } from './options.ts';
import { createPhaseLogger } from './phase-log.ts';

export { SHUTDOWN_GRACE_MS };

/** Serves lesson 16's app (lesson 11's serverOf); the caller owns the services. */
export const startServer = serverOf(createApp);

async function main(): Promise<void> {
  const settings = SERVER_PROCESS_OPTIONS.read();
  const options = readObservabilityOptions();
  const logger = createPhaseLogger({ component: 'api', level: options.logLevel });
  await runServerProcess({
    lab: LAB,
    database: settings.database,
    port: settings.port,
    options,
    createApp: (appOptions, services) =>
      createApp({ ...appOptions, redis: services.redis, queuePrefixes: [settings.queuePrefix], logger }),
    describe: describeTimings,
  });
}

runMain(import.meta.url, main);
