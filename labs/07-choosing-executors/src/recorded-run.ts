// Reads what a run of labs 01-06 left behind: each lab's .lab-result.json (written by
// lab-kit's runVerify: every check's id, outcome and observed text) and this lab's
// .earlier-labs.json (written by `pnpm earlier` and by this lesson's verify: which labs
// ran, and whether they passed). A malformed file is an error that names it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CodedError, errorMessage } from '@tasks-lab/lab-kit';
import { z } from 'zod';

/** One check's line of a .lab-result.json. `id` is missing only in files written before checks had ids. */
const recordedCheckSchema = z.object({
  id: z.string().optional(),
  name: z.string(),
  ok: z.boolean(),
  observed: z.string(),
});
export type RecordedCheck = z.infer<typeof recordedCheckSchema>;

/** What lab-kit's runVerify writes to a lab's .lab-result.json (the fields lesson 07 reads). */
const labResultSchema = z.object({
  lesson: z.string(),
  finishedAt: z.iso.datetime(),
  passed: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  results: z.array(recordedCheckSchema),
});
export type LabResultFile = z.infer<typeof labResultSchema>;

/** What .earlier-labs.json says about each lab (the fields the decision record's grader reads). */
const earlierLabsSchema = z.object({
  ranAt: z.iso.datetime(),
  labs: z.array(z.object({ lab: z.string(), status: z.string(), summary: z.string() })),
});
export type EarlierLabsSeen = z.infer<typeof earlierLabsSchema>;

export class LabResultUnreadableError extends CodedError {
  constructor(file: string, reason: string) {
    super('lab-result-unreadable', `${file} is not a verify result: ${reason}`);
  }
}

function readJsonFile<T>(file: string, schema: z.ZodType<T>): T | null {
  if (!existsSync(file)) return null;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new LabResultUnreadableError(file, errorMessage(err));
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    throw new LabResultUnreadableError(
      file,
      parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
    );
  return parsed.data;
}

/** The lab's .lab-result.json, or null when its verify never finished; a malformed file is an error naming it. */
export function readLabResult(labsDir: string, lab: string): LabResultFile | null {
  return readJsonFile(join(labsDir, lab, '.lab-result.json'), labResultSchema);
}

export const EARLIER_LABS_FILE = '.earlier-labs.json';

/** This lab's .earlier-labs.json, or null when `pnpm earlier` (or this lesson's verify) never ran. */
export function readEarlierLabsRecord(labDir: string): EarlierLabsSeen | null {
  return readJsonFile(join(labDir, EARLIER_LABS_FILE), earlierLabsSchema);
}
