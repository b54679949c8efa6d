// The child process of the hard-limit drill: a "crawler" stuck in a loop that never
// yields. It even arms its own exit timer, the way one might hope to time out from
// inside; that timer can never fire, because a blocked event loop runs no timers.
// Only the parent's watchdog (runWithHardTimeLimit) can end it.
//   usage: node --import tsx src/crawl-child.ts <block|finish> <selfTimeoutMs>
const [mode = 'block', selfTimeoutArg = '200'] = process.argv.slice(2);

setTimeout(() => {
  console.log('self timeout fired');
  process.exit(3);
}, Number(selfTimeoutArg));

console.log(`crawl child ${process.pid} started (${mode})`);
if (mode === 'block') {
  // Busy forever: no await, no timers, no signal handlers get a turn.
  for (;;) {
    // spinning
  }
} else {
  console.log('crawl child finished');
  process.exit(0);
}
