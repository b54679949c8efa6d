// Two rules of docs/CONTRIBUTING.md that no type checker sees, read off the labs' source:
//   - an option carries a doc comment with its `@defaultValue` at its definition, and a literal
//     default is written in one definition only (a later lab spreads or reuses the spec);
//   - a name means one thing: a drill-*.ts is a drill a student runs by hand (a package script
//     starts it; verify's check groups are named by topic), no script but verify.ts is verify-*,
//     and the course-timings switch (USE_COURSE_TIMINGS) is not named like the constant of
//     values (COURSE_TIMINGS).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/labs.ts';

/** One option spec: `key: builder('ENV', default, ...)`, `const key = builder('ENV', ...)`, or `key: { ...X.specs.key, default: ... }`. */
const BUILT_SPEC =
  /^\s*(?:export )?(?:const \w+ = |\w+: )(?:durationMs|wholeNumber|name|choice|text)\('([A-Z][A-Z0-9_]*)', (.*)$/;
const SPREAD_SPEC = /^\s*\w+: \{ \.\.\.[\w.]+\.specs\.\w+, default: /;

interface SpecLine {
  line: number;
  text: string;
  env?: string;
  /** The default as written, when it is a literal (a number or a quoted string). */
  literal?: string;
}

/** The option specs of a source file, comment lines skipped. */
function specLines(source: string): SpecLine[] {
  const specs: SpecLine[] = [];
  source.split('\n').forEach((text, index) => {
    if (/^\s*(\/\/|\*)/.test(text)) return;
    const built = BUILT_SPEC.exec(text);
    if (built) {
      const literal = /^(-?[\d_]+|'[^']*')(?=[,)])/.exec(built[2]!)?.[1];
      specs.push({ line: index + 1, text: text.trim(), env: built[1], ...(literal ? { literal } : {}) });
    } else if (SPREAD_SPEC.test(text)) {
      specs.push({ line: index + 1, text: text.trim() });
    }
  });
  return specs;
}

/** The specs whose definition has no doc comment ending right above it with a `@defaultValue`. */
function undocumentedSpecs(source: string): SpecLine[] {
  const lines = source.split('\n');
  return specLines(source).filter((spec) => {
    const above = spec.line - 2;
    if (!lines[above]?.trim().endsWith('*/')) return true;
    let start = above;
    while (start > 0 && !lines[start]!.includes('/**')) start -= 1;
    return !lines
      .slice(start, above + 1)
      .join('\n')
      .includes('@defaultValue');
  });
}

const labDirs = () =>
  readdirSync(join(REPO_ROOT, 'labs'))
    .filter((name) => /^\d\d-/.test(name))
    .map((name) => join(REPO_ROOT, 'labs', name));

/** Every source file that defines options: each lab's src/, and shared/*\/src. */
function optionSources(): string[] {
  const dirs = [
    ...labDirs().map((lab) => join(lab, 'src')),
    ...readdirSync(join(REPO_ROOT, 'shared')).map((pkg) => join(REPO_ROOT, 'shared', pkg, 'src')),
  ];
  return dirs
    .filter((dir) => existsSync(dir))
    .flatMap((dir) => readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((file) => join(dir, file)))
    .filter((path) => path.endsWith('.ts') && readFileSync(path, 'utf8').includes('defineOptions('));
}

describe('option definitions', () => {
  it('When a spec has no doc comment, or one without @defaultValue, Then it is named; a spread spec counts too', () => {
    const source = [
      'export const A = defineOptions({',
      '  /** Documented. @defaultValue 2 */',
      "  good: wholeNumber('GOOD', 2, { min: 1 }),",
      '  /** Said, no default. */',
      "  noDefault: durationMs('NO_DEFAULT', 30_000),",
      "  bare: text('BARE', ''),",
      '  spread: { ...B.specs.spread, default: 1 },',
      '  /**',
      '   * Long.',
      '   * @defaultValue 1',
      '   */',
      '  spreadOk: { ...B.specs.spreadOk, default: 1 },',
      '});',
      "// port: wholeNumber('PORT', 8000), in a comment, is not a spec",
    ].join('\n');
    expect(undocumentedSpecs(source).map((s) => s.env ?? s.text)).toEqual([
      'NO_DEFAULT',
      'BARE',
      'spread: { ...B.specs.spread, default: 1 },',
    ]);
    expect(specLines(source).map((s) => s.literal)).toEqual(['2', '30_000', "''", undefined, undefined]);
  });

  it.each(optionSources().map((path) => [relative(REPO_ROOT, path), path]))(
    'When %s defines an option, Then a doc comment with @defaultValue sits at its definition',
    (_name, path) => {
      expect(undocumentedSpecs(readFileSync(path, 'utf8')).map((s) => `${s.line}: ${s.text}`)).toEqual([]);
    },
  );

  it('When two definitions read the same variable, Then at most one writes its default as a literal (the others reuse it)', () => {
    const literals = new Map<string, string[]>();
    for (const path of optionSources()) {
      for (const spec of specLines(readFileSync(path, 'utf8'))) {
        if (!spec.env || spec.literal === undefined) continue;
        literals.set(spec.env, [
          ...(literals.get(spec.env) ?? []),
          `${relative(REPO_ROOT, path)}:${spec.line} (${spec.literal})`,
        ]);
      }
    }
    expect([...literals].filter(([, places]) => places.length > 1)).toEqual([]);
  });

  it('When a lab reads the course-timings switch, Then it is USE_COURSE_TIMINGS: COURSE_TIMINGS names the constant of values only', () => {
    const envNames = optionSources().flatMap((path) => specLines(readFileSync(path, 'utf8')).map((s) => s.env));
    expect(envNames).toContain('USE_COURSE_TIMINGS');
    expect(envNames).not.toContain('COURSE_TIMINGS');
  });
});

describe('script names', () => {
  const scripts = (lab: string) => (existsSync(join(lab, 'scripts')) ? readdirSync(join(lab, 'scripts')) : []);

  it.each(labDirs().map((lab) => [relative(REPO_ROOT, lab), lab]))(
    'When %s has a drill-*.ts, Then a package script runs it by hand; and no script but verify.ts is verify-*',
    (_name, lab) => {
      const { scripts: commands = {} } = JSON.parse(readFileSync(join(lab, 'package.json'), 'utf8')) as {
        scripts?: Record<string, string>;
      };
      const runByHand = (file: string) =>
        Object.values(commands).some((command) => command.includes(`scripts/${file}`));
      expect(scripts(lab).filter((file) => file.startsWith('drill-') && !runByHand(file))).toEqual([]);
      expect(scripts(lab).filter((file) => file.startsWith('verify') && file !== 'verify.ts')).toEqual([]);
    },
  );
});
