// For test files only (it imports vitest): `@tasks-lab/lab-kit/testing`.
// A can-fail suite proves that every check of a lab can fail: each case breaks a real
// part (a broken variant of the code under test, a fixture process, a fault point),
// runs the check's scenario for real, and expects the check to fail. A case never
// hands a judge invented evidence. `coversEveryCheck()` fails while any check of the
// lab has no case, so a new check cannot arrive without its proof.
import { expect, it } from 'vitest';
import { findCheck, runCheck, type Check, type CheckResult } from './checks.ts';

export interface BreakOptions {
  /** The observation must match this too (it says what the broken part did). */
  observed?: RegExp;
  /** vitest's time limit for this case. @defaultValue 60000 */
  timeoutMs?: number;
}

export interface CanFailSuite<D> {
  /** One case: with `makeDeps()`'s broken parts, the check `id` must fail. */
  breaks(id: string, when: string, makeDeps: () => D | Promise<D>, options?: BreakOptions): void;
  /** The closing case: every check id of the lab has a `breaks` case above. */
  coversEveryCheck(): void;
}

/** `build` is the lab's buildChecks: building checks must not start anything. */
export function canFailSuite<D>(build: (deps?: D) => readonly Check[]): CanFailSuite<D> {
  const covered = new Set<string>();
  return {
    breaks(id, when, makeDeps, options = {}) {
      covered.add(id);
      it(`When ${when}, Then check "${id}" fails`, { timeout: options.timeoutMs ?? 60_000 }, async () => {
        const check = findCheck(build(await makeDeps()), id);
        const result: CheckResult = await runCheck(check);
        expect(result.ok, `check ${id} passed with a broken part; observed: ${result.observed}`).toBe(false);
        if (options.observed) expect(result.observed).toMatch(options.observed);
      });
    },
    coversEveryCheck() {
      it('Every check of this lab has a can-fail case', () => {
        const missing = build().map((c) => c.id).filter((id) => !covered.has(id));
        expect(missing, `checks with no can-fail case: ${missing.join(', ')}`).toEqual([]);
      });
    },
  };
}
