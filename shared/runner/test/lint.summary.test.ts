import { describe, expect, it } from 'vitest';
import { parseLintSummary } from '../src/lint.ts';

describe("pnpm lint's summary in pnpm test", () => {
  it('When Biome reports errors and warnings, Then both are counted', () => {
    const output =
      'Checked 791 files in 683ms. No fixes applied.\nFound 2 errors.\nFound 57 warnings.\nFound 21 infos.\n';
    expect(parseLintSummary(output, 1)).toEqual({ errors: 2, warnings: 57 });
  });

  it('When Biome finds nothing or only one warning, Then the counts are 0 and 1', () => {
    expect(parseLintSummary('Checked 10 files in 5ms. No fixes applied.\n', 0)).toEqual({ errors: 0, warnings: 0 });
    expect(parseLintSummary('Found 1 warning.\n', 0)).toEqual({ errors: 0, warnings: 1 });
  });

  it('When the linter fails without a summary (a bad configuration, say), Then that is one error', () => {
    expect(parseLintSummary('biome.json: unknown key "lintr"', 1)).toEqual({ errors: 1, warnings: 0 });
  });
});
