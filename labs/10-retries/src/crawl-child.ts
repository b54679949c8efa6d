// The child process of the hard-limit drill: a "crawler" stuck in a loop that never
// yields. It even arms its own exit timer and a SIGTERM handler, the ways one might hope
// to stop it from inside; neither can ever run, because a blocked event loop runs no
// timers and no signal handlers. Only the parent's SIGKILL (runWithHardTimeLimit) ends it.
//   usage: node --import tsx src/crawl-child.ts <block|finish> <selfTimeoutMs>
import { onShutdown, runMain } from '@tasks-lab/lab-kit';

function main(): number | void {
  const [mode = 'block', selfTimeoutArg = '200'] = process.argv.slice(2);
  const selfTimeout = setTimeout(() => {
    console.log('self timeout fired');
    process.exit(3);
  }, Number(selfTimeoutArg));
  onShutdown(async () => console.log('crawl child stopped by a signal'));

  console.log(`crawl child ${process.pid} started (${mode})`);
  if (mode === 'finish') {
    clearTimeout(selfTimeout);
    console.log('crawl child finished');
    return 0;
  }
  // Busy forever: no await, so no timer, no signal handler, nothing else gets a turn.
  for (;;) {
    // spinning
  }
}

runMain(import.meta.url, main);
