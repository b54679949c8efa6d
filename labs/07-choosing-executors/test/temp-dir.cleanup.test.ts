// Nothing left behind: the drill and a test run each point the temp dir (TMPDIR, which
// os.tmpdir() reads on every call) at a private folder, and that folder must hold no
// lab07 folder afterwards.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runCheckerDrill } from '../scripts/scenarios.ts';
import { makeTempDir } from './temp-dirs.ts';

const labDir = fileURLToPath(new URL('..', import.meta.url));
const leftovers = (dir: string) => readdirSync(dir).filter((name) => name.startsWith('lab07'));

/** Runs `work` with the temp dir moved to a fresh folder; returns that folder's lab07 entries afterwards. */
async function lab07FoldersLeftBy(work: (tempDir: string) => Promise<unknown>): Promise<string[]> {
  const tempDir = makeTempDir('tmpdir');
  const before = process.env.TMPDIR;
  process.env.TMPDIR = tempDir;
  try {
    await work(tempDir);
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  }
  return leftovers(tempDir);
}

// Real processes (four checker runs, one vitest run) on a busy 2-core machine.
describe('the temp dir after lab 07 ran', { timeout: 180_000 }, () => {
  it('When the checker drill has run, Then the temp dir holds no lab07 folder [test:drill-leaves-no-temp-folder]', async () => {
    let exits: Array<number | null> = [];
    const left = await lab07FoldersLeftBy(async () => {
      exits = (await runCheckerDrill({})).map((run) => run.exit);
    });
    expect(exits).toEqual([0, 1, 1, 1]);
    expect(left).toEqual([]);
  });

  it('When a test file that makes throwaway labs folders has run, Then the temp dir holds no lab07 folder [test:test-run-leaves-no-temp-folder]', async () => {
    const vitest = join(labDir, 'node_modules', 'vitest', 'vitest.mjs');
    const left = await lab07FoldersLeftBy((tempDir) =>
      // --reporter=default: the child must not overwrite this run's .vitest-result.json.
      promisify(execFile)(
        process.execPath,
        [vitest, 'run', 'test/decision-record.grade.test.ts', '--reporter=default'],
        {
          cwd: labDir,
          env: { ...process.env, TMPDIR: tempDir, FORCE_COLOR: '0' },
        },
      ),
    );
    expect(left).toEqual([]);
  });
});
