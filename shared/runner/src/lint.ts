// `pnpm lint` inside `pnpm test`: Biome's linter over every TypeScript file of the workspace. Its
// errors fail the run; its warnings are counted and shown (docs/CONTRIBUTING.md says which rules and why).
export interface LintOutcome {
  errors: number;
  warnings: number;
}

/** Reads Biome's closing lines ("Found 2 errors.", "Found 57 warnings."); an exit without them is one error. */
export function parseLintSummary(output: string, status: number): LintOutcome {
  const count = (kind: string) => Number(new RegExp(`Found (\\d+) ${kind}s?\\.`).exec(output)?.[1] ?? 0);
  const errors = count('error');
  return { errors: status !== 0 && errors === 0 ? 1 : errors, warnings: count('warning') };
}
