// Entry point of one export worker process: `pnpm worker` (settings from the environment,
// see startWorkerFromEnv). The drills start several of these and SIGKILL them.
import { startWorkerFromEnv } from './export-worker.ts';

await startWorkerFromEnv();
