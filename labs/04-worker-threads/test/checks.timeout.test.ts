// A check that runs out of time must not leave threads behind for the next one: its
// scenario's threads belong to the check's signal, and runCheck waits for them to go.
import { findCheck, runCheck } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { buildChecks } from '../scripts/checks.ts';

describe('a check past its time limit', () => {
  it.each(['every-id-settled', 'lock-keeps-count-exact'])(
    'When check "%s" times out while its threads run, Then it fails and its threads were terminated before runCheck returns',
    async (id) => {
      const check = findCheck(buildChecks(), id);
      const started = Date.now();

      const result = await runCheck({ ...check, timeoutMs: 300 }, { cleanupGraceMs: 5_000 });

      expect(result.ok).toBe(false);
      expect(result.observed).toBe('no answer within 300 ms; its resources were released');
      expect(Date.now() - started).toBeLessThan(3_000);
    },
  );
});
