// The walker, tested like the checks: a small doc that walks, and for each way a walk must fail
// (a wrong literal line, a failing step, a ready line that never comes, a placeholder of the wrong
// type, a process left behind), the same doc broken that way, which must fail the walk with a
// message naming the step and the doc's line. Real bash, real processes, real process groups.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/labs.ts';
import { runWalk, type WalkOptions, type WalkReport } from '../src/walk/walk.ts';
import { withPortLocks } from '../src/walk/index.ts';

const work = mkdtempSync(join(tmpdir(), 'walk-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// A "worker" that prints its ready line with its pid, says what it got on stdin-less runs, and
// closes on SIGINT. It is written to a file so the doc's command reads like a student's.
const WORKER = join(work, 'worker.mjs');
writeFileSync(
  WORKER,
  [
    "const mode = process.argv[2] ?? 'normal';",
    "if (mode === 'silent') { setInterval(() => {}, 1000); } else {",
    '  console.log(`worker ${process.pid} ready`);',
    "  process.on('SIGINT', () => { if (mode === 'stubborn') return; console.log('closing'); setTimeout(() => process.exit(0), 50); });",
    '  setInterval(() => {}, 1000);',
    '}',
  ].join('\n'),
);

const GOOD = `# A lesson

<!-- walk folder ${relative(REPO_ROOT, work)} -->
Work in \`cd ${relative(REPO_ROOT, work)}\`.

<!-- walk start A ready="ready" -->
\`\`\`sh
node worker.mjs
\`\`\`

<!-- walk expect A vary="4242=pid" -->
\`\`\`
worker 4242 ready
\`\`\`

In a second terminal:

<!-- walk run B -->
\`\`\`sh
echo "job 8e91c190-59be-4456-9cd5-d8e7f8290318 accepted"
\`\`\`

<!-- walk expect B -->
\`\`\`
job 8e91c190-59be-4456-9cd5-d8e7f8290318 accepted
\`\`\`

<!-- walk run B -->
\`\`\`sh
cd .. && cd -
echo "asked about" \\
  "8e91c190-59be-4456-9cd5-d8e7f8290318"
\`\`\`

<!-- walk expect B -->
\`\`\`
asked about 8e91c190-59be-4456-9cd5-d8e7f8290318
\`\`\`

Press Ctrl-C in A:

<!-- walk ctrl-c A -->
<!-- walk expect A -->
\`\`\`
closing
\`\`\`

<!-- walk closing -->
\`\`\`sh
pnpm -w lab 99
\`\`\`
`;

async function walk(text: string, extra: Partial<WalkOptions> = {}): Promise<{ report: WalkReport; printed: string }> {
  const lines: string[] = [];
  const report = await runWalk({
    text,
    docName: 'docs/99-test.md',
    root: REPO_ROOT,
    lesson: '99',
    labFolder: 'labs/99-test',
    print: (line) => lines.push(line),
    timings: { readyMs: 5_000, expectMs: 3_000, ctrlCMs: 5_000, waitMs: 5_000, runMs: 20_000 },
    ...extra,
  });
  return { report, printed: lines.join('\n') };
}

const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

describe('a walk of a doc whose steps hold', () => {
  it('When every step shows what the doc says, Then every step passes, and the sample id in a command is the real one', {
    timeout: 60_000,
  }, async () => {
    const { report, printed } = await walk(GOOD);
    expect(report.problems).toEqual([]);
    expect({ passed: report.passed, failed: report.failed }).toEqual({ passed: 9, failed: 0 });
    expect(printed).toMatch(/✓ step 1\/9 {2}A\$ node worker\.mjs {3}\(keeps running\) … ok \(ready in/);
    expect(printed).toMatch(/✓ step 7\/9 {2}A {2}Ctrl-C … ok \(exited 0 in/);
    expect(printed).toMatch(/9 passed, 0 failed/);
  });
});

describe('a walk must fail', () => {
  it("When a literal expected line is wrong, Then the walk fails naming the step, the doc's line, and what was seen", {
    timeout: 60_000,
  }, async () => {
    const broken = GOOD.replace('closing\n', 'closed\n');
    const { report, printed } = await walk(broken);
    expect(report.failed).toBe(2); // the step, and the closing step after it, which did not run
    expect(printed).toContain(
      `✗ step 8/9  A  you should see: closed … FAILED at docs/99-test.md:${lineOf(broken, 'walk expect A -->')}`,
    );
    expect(printed).toContain(`expected (docs/99-test.md:${lineOf(broken, 'closed')}): closed`);
  });

  it('When a command exits with another code than the doc expects, Then that step fails and the later ones do not run', {
    timeout: 60_000,
  }, async () => {
    const broken = GOOD.replace('echo "job 8e91', 'false; exit 3 # "job 8e91');
    const { report, printed } = await walk(broken);
    expect(printed).toMatch(
      /✗ step 3\/9 {2}B\$ false; exit 3 .* FAILED at docs\/99-test\.md:\d+\n {4}`false; exit 3 .*` exited with 3, the doc expects 0/,
    );
    expect(report.steps.filter((s) => s.outcome === 'not run')).toHaveLength(6);
    expect(report.failed).toBe(7);
  });

  it('When a ready line never comes, Then the step fails saying what it waited for and for how long, and the process is stopped', {
    timeout: 60_000,
  }, async () => {
    const broken = GOOD.replace('node worker.mjs\n', 'node worker.mjs silent\n');
    const { report, printed } = await walk(broken);
    expect(printed).toContain('did not print its ready line "ready" within 5.0 s');
    expect(report.problems).toEqual([]); // stopped by the walk's clean-up, so nothing is left behind
  });

  it('When a placeholder sees a value of the wrong type, Then the expected line does not match', {
    timeout: 60_000,
  }, async () => {
    const broken = GOOD.replace(
      'echo "job 8e91c190-59be-4456-9cd5-d8e7f8290318 accepted"',
      'echo "job not-a-uuid accepted"',
    );
    const { printed } = await walk(broken);
    expect(printed).toMatch(/✗ step 4\/9 .*FAILED[\s\S]*seen: {2}job not-a-uuid accepted/);
  });

  it('When the doc never stops a process it started, Then the walk fails at the end, and stops it', {
    timeout: 60_000,
  }, async () => {
    const broken = GOOD.replace('<!-- walk ctrl-c A -->\n<!-- walk expect A -->\n```\nclosing\n```\n', '');
    const { report, printed } = await walk(broken);
    expect(report.problems).toEqual([
      expect.stringMatching(/terminal A still runs `node worker\.mjs` at the end: the doc never says to stop it/),
    ]);
    expect(report.failed).toBe(1);
    expect(printed).toMatch(/7 passed, 1 failed/);
  });

  it('When a process escapes its process group, Then the walk finds it at the end, fails, and kills it', {
    timeout: 60_000,
  }, async () => {
    const broken = GOOD.replace('echo "job 8e91', 'setsid sleep 300 & echo "job 8e91');
    const { report } = await walk(broken);
    expect(report.problems).toEqual([
      expect.stringMatching(/was still running after its terminal was stopped: pid \d+ sleep 300/),
    ]);
  });

  it('When a process ignores Ctrl-C, Then the step fails once its bound has passed, naming the bound', {
    timeout: 60_000,
  }, async () => {
    const broken = GOOD.replace('node worker.mjs\n', 'node worker.mjs stubborn\n');
    const { printed } = await walk(broken);
    expect(printed).toMatch(
      /✗ step 7\/9 {2}A {2}Ctrl-C … FAILED[\s\S]*was still running 5\.0 s after the Ctrl-C \(stopped\)/,
    );
  });

  it("When the closing step names another lesson's checks, Then it fails", { timeout: 60_000 }, async () => {
    const { printed } = await walk(GOOD.replace('pnpm -w lab 99', 'pnpm -w lab 98'));
    expect(printed).toMatch(
      /the closing step must run lesson 99's checks with one of: pnpm lab 99, pnpm -w lab 99; it shows: pnpm -w lab 98/,
    );
  });
});

describe('a real lesson doc', () => {
  it('When one literal expected line of docs/01 is changed, Then its walk fails naming the step and the line, and stops the server', {
    timeout: 30 * 60_000,
  }, async () => {
    const real = readFileSync(join(REPO_ROOT, 'docs/01-state-machine.md'), 'utf8');
    const original = 'listening on http://127.0.0.1:8000 (API docs: http://127.0.0.1:8000/docs)';
    expect(real).toContain(original);
    const changed = real.replace(
      original,
      'listening on http://127.0.0.1:8000 (API docs: http://127.0.0.1:8000/api-docs)',
    );
    // The real doc's ports: wait for any other walk on this machine, as `pnpm lab 01 --walk` would.
    const { report, printed } = await withPortLocks([8000], () =>
      walk(changed, {
        docName: 'docs/01-state-machine.md',
        lesson: '01',
        labFolder: 'labs/01-state-machine',
        timings: { expectMs: 5_000 },
      }),
    );
    const line = changed.split('\n').findIndex((l) => l.includes('/api-docs)')) + 1;
    expect(printed).toContain(
      `expected (docs/01-state-machine.md:${line}): listening on http://127.0.0.1:8000 (API docs: http://127.0.0.1:8000/api-docs)`,
    );
    expect(printed).toMatch(/✗ step 2\/\d+ {2}A {2}you should see: .* FAILED at docs\/01-state-machine\.md:\d+/);
    expect(report.problems).toEqual([]); // the server was stopped by the walk, not left for the doc to blame
  });
});

describe('Ctrl-Z, fg, and ports', () => {
  it('When the doc presses Ctrl-Z, Then the job is stopped until fg, and a Ctrl-C afterwards still closes it', {
    timeout: 60_000,
  }, async () => {
    const text = GOOD.replace(
      'Press Ctrl-C in A:',
      [
        'Suspend it with Ctrl-Z in A:',
        '',
        '<!-- walk ctrl-z A -->',
        '<!-- walk run B -->',
        '```sh',
        'grep State /proc/4242/status',
        '```',
        '',
        '<!-- walk expect B -->',
        '```',
        'State:\tT (stopped)',
        '```',
        '',
        '<!-- walk fg A -->',
        'Press Ctrl-C in A:',
      ].join('\n'),
    );
    const { report, printed } = await walk(text);
    expect(report.problems).toEqual([]);
    expect(printed).toMatch(/✓ step 7\/13 {2}A {2}Ctrl-Z … ok \(suspended\)/);
    expect(printed).toMatch(/✓ step 10\/13 {2}A\$ fg … ok \(resumed\)/);
    expect({ passed: report.passed, failed: report.failed }).toEqual({ passed: 13, failed: 0 });
  });

  it('When a port the doc talks to is already taken, Then no step runs and the walk says which port and who holds it', {
    timeout: 60_000,
  }, async () => {
    const { createServer } = await import('node:net');
    const server = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as { port: number };
    try {
      const { report, printed } = await walk(
        GOOD.replace('echo "job 8e91', `curl -s localhost:${port}/ >/dev/null; echo "job 8e91`),
      );
      expect(report.steps).toEqual([]);
      expect(printed).toMatch(
        new RegExp(
          `port ${port}, which this doc's commands use, is already taken( \\(by node, pid ${process.pid}\\))?: stop that first`,
        ),
      );
    } finally {
      server.close();
    }
  });
});

describe("the sample of the checks' output", () => {
  const sample = (idShown: string) =>
    GOOD.replace(
      '<!-- walk closing -->',
      [
        '<!-- walk verify-output -->',
        '```',
        `✓ pass  the record is backed [${idShown}] — observed: lab 02 [reads-at-once-limited] "peak 2"`,
        '1 passed, 0 failed',
        '```',
        '',
        '<!-- walk closing -->',
      ].join('\n'),
    );
  const checkIds = async () => ['decision-record-backed'];

  it("When an observation quotes another lab's check id, Then only the check's own id is compared", {
    timeout: 60_000,
  }, async () => {
    const { report } = await walk(sample('decision-record-backed'), { checkIds });
    expect({ passed: report.passed, failed: report.failed }).toEqual({ passed: 10, failed: 0 });
  });

  it('When the sample names a check the lesson does not have, Then that step fails naming it', {
    timeout: 60_000,
  }, async () => {
    const { printed } = await walk(sample('decision-record-backd'), { checkIds });
    expect(printed).toMatch(/the sample names checks lesson 99 does not have: decision-record-backd/);
  });
});

describe('one stream, as a terminal shows it', () => {
  it('When a command writes to stdout and stderr in turn, Then the lines keep the order they were written in', {
    timeout: 60_000,
  }, async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i} on ${i % 2 ? 'stderr' : 'stdout'}`);
    const script = lines.map((l, i) => `echo "${l}"${i % 2 ? ' >&2' : ''}`).join('; ');
    const text = GOOD.replace('echo "job 8e91', `${script}; echo "job 8e91`).replace(
      '<!-- walk expect B -->\n```\njob 8e91c190-59be-4456-9cd5-d8e7f8290318 accepted',
      `<!-- walk expect B -->\n\`\`\`\n${lines.join('\n')}\njob 8e91c190-59be-4456-9cd5-d8e7f8290318 accepted`,
    );
    const { report } = await walk(text);
    expect({ passed: report.passed, failed: report.failed }).toEqual({ passed: 9, failed: 0 });
  });
});
