// Lab 16's pipeline processes as `pnpm bench:pipeline` and `pnpm soak` start them: each entry
// point (the same files `pnpm start`, `pnpm scanner`, `pnpm publisher` and `pnpm worker:*` run)
// and the line it prints once it is ready to work.
import { fileURLToPath } from 'node:url';

const script = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export const PIPELINE_PROCESSES = {
  api: { script: script('../src/server.ts'), ready: /listening on/ },
  scanner: { script: script('../src/scanner-process.ts'), ready: /recovery scanner \d+ ready/ },
  publisher: { script: script('../src/publisher-process.ts'), ready: /publisher \d+ ready/ },
  /** Takes the queue as its argument: 'fast' or 'bulk'. */
  worker: { script: script('../src/worker.ts'), ready: /export worker \d+ ready/ },
} as const;

export type PipelineRole = keyof typeof PIPELINE_PROCESSES;
