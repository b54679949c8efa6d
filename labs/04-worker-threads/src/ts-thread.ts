// Starts a worker thread that runs a TypeScript file. Node 20 does not hand the tsx
// loader of the parent on to a worker's entry point, so each thread starts with a
// two-line JavaScript bootstrap: register tsx inside the new thread, then import the
// .ts file. (A plain JavaScript project would pass the file path to `new Worker`.)
import { Worker, type WorkerOptions } from 'node:worker_threads';

const tsxApi = import.meta.resolve('tsx/esm/api');

export function startTsThread(entry: URL, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  const bootstrap =
    `import(${JSON.stringify(tsxApi)})` +
    `.then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}
