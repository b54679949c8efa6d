// Course coverage as data. Each lab lists its lesson's checklist items (in our own
// words, with the course section each comes from) and, for each, what grades it:
//   check:<id>   a verify check (scripts/checks.ts, defineCheck({ id }))
//   test:<id>    a vitest test tagged in its title with [test:<id>] (a title is not an id)
// or, where nothing can observe it, `docOnly` with the reason. `pnpm lab coverage`
// checks the data against the real check ids and test tags, and writes the lesson doc's
// mapping table from it, so the two cannot drift.

export const COURSE_SECTIONS = [
  'learning-check',
  'implementation-decision',
  'drill',
  'acceptance',
  'troubleshooting',
  'exercise',
  // Lesson 16's failure matrix: one item per row of the course's table (step 4).
  'failure-matrix',
  'deep-dive',
] as const;
export type CourseSection = (typeof COURSE_SECTIONS)[number];

/**
 * Sections whose items say what a student sees or what must hold: they are always
 * graded by a check or a test, never doc-only.
 */
export const ALWAYS_GRADED: readonly CourseSection[] = [
  'learning-check',
  'drill',
  'acceptance',
  'exercise',
  'failure-matrix',
];

export interface CoverageItem {
  section: CourseSection;
  /** One short line, in the project's words. */
  item: string;
  /** `check:<id>` and `test:<id>` references; every one must exist. */
  gradedBy?: readonly string[];
  /** Why nothing grades it (an idea nothing can observe). */
  docOnly?: string;
}

/** Identity helper, so a lab's data is typed where it is written: `export const COVERAGE = coverage([...])`. */
export function coverage(items: readonly CoverageItem[]): readonly CoverageItem[] {
  return items;
}
