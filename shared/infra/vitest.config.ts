// The shared settings, plus a global setup that brings the labs' services up.
import { defineConfig, mergeConfig } from 'vitest/config';
import base from '../../vitest.base.ts';

export default mergeConfig(base, defineConfig({ test: { globalSetup: ['./src/vitest-global-setup.ts'] } }));
