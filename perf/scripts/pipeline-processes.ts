// Lab 16's pipeline processes as `pnpm bench:pipeline` and `pnpm soak` start them: each entry
// point (the same files lab 16's `pnpm start`, `pnpm scanner`, `pnpm publisher` and
// `pnpm worker:*` run) and the line it prints once it is ready to work.
import { fileURLToPath } from 'node:url';

/** Lab 16's src/ folder, found the way Node finds the package (so no path climbs out of perf/). */
const LAB_16_SRC = new URL('./', import.meta.resolve('@tasks-lab/16-observability'));
const script = (file: string) => fileURLToPath(new URL(file, LAB_16_SRC));

export const PIPELINE_PROCESSES = {
  api: { script: script('server.ts'), ready: /listening on/ },
  scanner: { script: script('scanner-process.ts'), ready: /recovery scanner \d+ ready/ },
  publisher: { script: script('publisher-process.ts'), ready: /publisher \d+ ready/ },
  /** Takes the queue as its argument: 'fast' or 'bulk'. */
  worker: { script: script('worker.ts'), ready: /export worker \d+ ready/ },
} as const;

export type PipelineRole = keyof typeof PIPELINE_PROCESSES;
