// `pnpm lab diff N-1 N` is how an instructor reads lessons 11 to 16: its default output must read
// as the lesson, not as the labs' re-wiring. The target is about 500 lines per pair. Each pair
// has a ceiling a little above its size today, so a change that makes a lesson's reading longer
// fails here and has to say why. 11->12 is the one pair above 500: what is left there is lesson
// 12's own rewrite of `pnpm submit` (it now prints the job's outbox event and nudges the
// publisher) and its options (the publisher's six), not re-wiring. 12->13 went from 500 to 520
// with lesson 13's early refusal (its option, its step in app.ts, its new checks' names), then to
// 539 with its finish in one statement (FINISH_AND_LEAVE, finishAndLeaveInOneStatement, FINISH_FORM):
// lesson, both. Then to 551 with its admissions in groups (ADMISSION_GROUP_MAX and its doc comment
// in options.ts, the new module and test named in the file list, one line in app.ts's header):
// the lesson's group commit. 11->12 went from 530 to 540 with the publisher's confirmation per round
// (OUTBOX_CONFIRM_FORM and its values in options.ts): lesson too. 14->15 went from 383 to 386 with
// the worker process's `logEachJob` (its doc comment, its field, and passing it on in worker.ts):
// lesson 15's per-job lines, which lesson 16 drops above LOG_LEVEL=info.
import { describe, expect, it } from 'vitest';
import { renderDiff } from '../src/diff.ts';
import { findLab, type Lab } from '../src/labs.ts';
import { findLesson } from '../src/lessons.ts';

/** The target of the lab layout, and each pair's ceiling (its default output, in lines). */
const TARGET_LINES = 500;
const CEILINGS: Record<string, number> = {
  '10->11': 485,
  '11->12': 545,
  '12->13': 555,
  '13->14': 360,
  '14->15': 390,
  '15->16': 485,
};

const labOf = (number: string): Lab => {
  const lesson = findLesson(number);
  const lab = lesson && findLab(lesson);
  if (!lab) throw new Error(`no lab for lesson ${number}`);
  return lab;
};

describe('pnpm lab diff reads as the lesson', () => {
  for (const [pair, ceiling] of Object.entries(CEILINGS)) {
    const [from, to] = pair.split('->') as [string, string];
    it(`When an instructor runs pnpm lab diff ${from} ${to}, Then it prints at most ${ceiling} lines (target ${TARGET_LINES})`, () => {
      const lines = renderDiff(labOf(from), labOf(to)).split('\n').length;
      expect(lines, `pnpm lab diff ${from} ${to} prints ${lines} lines`).toBeLessThanOrEqual(ceiling);
    });
  }

  it('When a lesson is read, Then its sections come in the order an instructor reads them', () => {
    const text = renderDiff(labOf('14'), labOf('15'));
    const order = [
      'What lesson 15 adds',
      'What lesson 15 changes in modules',
      'Its tests and checks',
      'Re-wiring',
      'Not repeated',
    ];
    const at = order.map((title) => text.indexOf(title));
    expect(
      at.every((i) => i >= 0),
      `sections found at ${at.join(', ')}`,
    ).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(text).toContain('+ src/chunked-delivery.ts');
    expect(text).toContain('+ migrations/001-recovery.sql');
    // The schema's change, without the committed file's header (which only names the lab).
    expect(text).toContain('+table export_dead_letters');
    expect(text).not.toContain('# The schema lab 15 runs on');
  });
});
