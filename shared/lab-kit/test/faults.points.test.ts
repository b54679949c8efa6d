import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { errorCode } from '../src/errors.ts';
import { faultPoints, faultRule, parseFaults } from '../src/faults.ts';
import { startTsProcess } from '../src/processes.ts';

const FAULT_PROCESS = fileURLToPath(new URL('./fixtures/fault-process.ts', import.meta.url));

describe('parseFaults', () => {
  it('When rules are well formed, Then each has its point, action and count', () => {
    expect(parseFaults('a:crash, b:delay-250:always ,c:throw:2', ['a', 'b', 'c'])).toEqual([
      { point: 'a', action: { kind: 'crash' }, times: 1 },
      { point: 'b', action: { kind: 'delay', ms: 250 }, times: Infinity },
      { point: 'c', action: { kind: 'throw' }, times: 2 },
    ]);
    expect(parseFaults('', ['a'])).toEqual([]);
  });

  it.each([
    ['typo:crash', /unknown fault point "typo"; this process has: a/],
    ['a:explode', /action "explode"; use crash, throw, hang or delay-<ms>/],
    ['a:throw:0', /count "0"; use once, always or a whole number from 1/],
    ['a', /is not <point>:<action>\[:<count>\]/],
    ['a:throw:1:extra', /is not <point>:<action>\[:<count>\]/],
  ])('When the rule is "%s", Then it is refused with a message saying why', (spec, message) => {
    expect(() => parseFaults(spec, ['a'])).toThrow(message);
  });

  it('When a drill builds a rule, Then it parses back', () => {
    expect(parseFaults(faultRule('a', 'delay-10', 3), ['a'])).toEqual([
      { point: 'a', action: { kind: 'delay', ms: 10 }, times: 3 },
    ]);
  });
});

describe('faultPoints', () => {
  it('When a throw rule has a count of 2, Then the point throws twice, then passes', async () => {
    const faults = faultPoints(['p'], { LAB_FAULTS: 'p:throw:2' });
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      await faults.hit('p').then(
        () => seen.push('passed'),
        (err: unknown) => seen.push(errorCode(err) ?? 'no code'),
      );
    }
    expect(seen).toEqual(['fault-injected', 'fault-injected', 'passed']);
  });

  it('When no rule is set, Then every point passes and describe says none', async () => {
    const faults = faultPoints(['p'], {});
    await expect(faults.hit('p')).resolves.toBeUndefined();
    expect(faults.describe()).toBe('faults: none');
  });

  it('When a delay rule fires, Then the point waits about that long', async () => {
    const faults = faultPoints(['p'], { LAB_FAULTS: 'p:delay-120' });
    const started = Date.now();
    await faults.hit('p');
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });

  it('When a real process has a crash rule, Then it dies by SIGKILL at that point and nothing after it runs', {
    timeout: 30_000,
  }, async () => {
    const proc = startTsProcess(FAULT_PROCESS, { env: { LAB_FAULTS: 'before-answer:crash:once' } });
    const exit = await proc.exited;
    expect(exit.signal).toBe('SIGKILL');
    expect(proc.output()).toMatch(/faults: before-answer:crash:1/);
    expect(proc.output()).not.toMatch(/hit 1/);
  });

  it('When the replacement process starts without the rule, Then it runs clean', { timeout: 30_000 }, async () => {
    const proc = startTsProcess(FAULT_PROCESS, { env: { LAB_FAULTS: '' } });
    expect((await proc.exited).code).toBe(0);
    expect(proc.output()).toMatch(/hit 1: passed\nhit 2: passed\nhit 3: passed/);
  });
});
