// The shared settings, unchanged: perf's tests are pure (the figures and the evidence are built
// in the test), so no services are brought up. `pnpm bench` and `pnpm soak` gather the real thing.
export { default } from '../vitest.base.ts';
