// The shared settings, plus one difference: this lab needs Redis and the database,
// so a global setup brings them up (idempotently) before the tests run.
import { defineConfig, mergeConfig } from 'vitest/config';
import base from '../../vitest.base.ts';

export default mergeConfig(
  base,
  defineConfig({ test: { globalSetup: ['../../shared/infra/src/vitest-global-setup.ts'] } }),
);
