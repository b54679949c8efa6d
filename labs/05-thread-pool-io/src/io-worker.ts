// Entry point of every pool thread (BlockingIoPool starts this file in a Worker).
import { readSync } from './blocking-read.ts';
import { serveReads } from './worker-loop.ts';

serveReads(readSync);
