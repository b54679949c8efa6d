// Why the counters live in a SharedArrayBuffer: everything else a worker receives is a copy.
import { Socket } from 'node:net';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';

// Plain JavaScript, so the thread needs no TypeScript loader.
const mutateBoth = `
  const { workerData, parentPort } = require('node:worker_threads');
  workerData.counts.done += 1;
  new Int32Array(workerData.shared)[0] += 1;
  parentPort.postMessage(workerData.counts.done);
`;

describe('memory between threads', () => {
  it('When a worker changes an object and a SharedArrayBuffer it was given, Then the main thread sees only the shared memory change [test:threads-get-copies]', async () => {
    const counts = { done: 0 };
    const shared = new SharedArrayBuffer(4);
    const worker = new Worker(mutateBoth, { eval: true, workerData: { counts, shared } });
    // Listen for everything at once, before anything can happen: awaiting the message and
    // only then listening for 'exit' could miss a quick exit and wait for ever.
    const messages: unknown[] = [];
    worker.on('message', (value) => messages.push(value));
    const exitCode = await new Promise((resolve) => worker.once('exit', resolve));

    expect(messages).toEqual([1]); // the worker changed its copy...
    expect(counts.done).toBe(0); // ...and the main thread's object never moved
    expect(new Int32Array(shared)[0]).toBe(1); // shared memory is the same memory
    expect(exitCode).toBe(0);
  });

  it('When a connection object is handed to a thread, Then Node refuses to copy it: each thread opens its own connections [test:connection-per-thread]', () => {
    const connection = new Socket(); // stands for a database or product-API client
    try {
      expect(() => new Worker('', { eval: true, workerData: { connection } })).toThrow(/could not be cloned/);
    } finally {
      connection.destroy();
    }
  });
});
