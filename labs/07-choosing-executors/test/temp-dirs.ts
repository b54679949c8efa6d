// Throwaway folders for tests, in the system temp dir. Each test file removes the
// folders it made when it ends, so a test run leaves nothing behind in the temp dir.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** Every test folder's name starts with this, so a leftover is easy to spot. */
export const TEST_DIR_PREFIX = 'lab07-test-';

const made: string[] = [];

// Imported by a test file while vitest collects it, so this hook belongs to that file.
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export function makeTempDir(purpose: string): string {
  const dir = mkdtempSync(join(tmpdir(), `${TEST_DIR_PREFIX}${purpose}-`));
  made.push(dir);
  return dir;
}
