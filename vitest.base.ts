// The vitest settings every lab shares. A lab's vitest.config.ts re-exports this
// (or merges into it and says why it differs).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Labs measure concurrency and timings; running test files one at a time keeps
    // those measurements honest on a 2-core machine.
    fileParallelism: false,
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-result.json' },
  },
});
