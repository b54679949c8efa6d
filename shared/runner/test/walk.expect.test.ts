// How an expected block is compared with what a command printed: in order, lines next to each
// other unless a `...` line stands between them, values that vary checked for their type.
import { describe, expect, it } from 'vitest';
import { matchBlock, outputLines } from '../src/walk/expect.ts';
import { Bindings, literalLineCount, varyProblems } from '../src/walk/placeholders.ts';

const ID = '8e91c190-59be-4456-9cd5-d8e7f8290318';
const OTHER = 'bb76ff31-0520-4a3f-af03-4d6fee68db8d';
const REAL = '3f0c2a10-1111-4222-8333-444455556666';
const REAL2 = '9a9a9a9a-aaaa-4bbb-8ccc-dddddddddddd';

function withVary(vary: Array<{ sample: string; type: string }>): Bindings {
  const bindings = new Bindings();
  bindings.declare(vary);
  return bindings;
}

describe('matchBlock', () => {
  it('When the lines appear in order, next to each other, Then it matches, with output before and after allowed', () => {
    const result = matchBlock(['b', 'c'], ['a', 'b', 'c', 'd'], new Bindings());
    expect(result).toMatchObject({ ok: true, end: 3 });
  });

  it('When a line is missing between two expected lines, Then it does not match unless a ... line stands there', () => {
    expect(matchBlock(['a', 'c'], ['a', 'b', 'c'], new Bindings()).ok).toBe(false);
    expect(matchBlock(['a', '...', 'c'], ['a', 'b', 'x', 'c'], new Bindings()).ok).toBe(true);
  });

  it('When one literal line differs, Then the failure names that line and the line seen in its place', () => {
    const result = matchBlock(['first', 'second', 'third'], ['first', 'second', 'THIRD'], new Bindings());
    expect(result).toEqual({ ok: false, expectedIndex: 2, expected: 'third', seen: 'THIRD', why: undefined });
  });

  it('When spaces differ only at the ends of a line, Then the lines are the same', () => {
    expect(matchBlock(['  Tests  20 passed (20)'], ['      Tests  20 passed (20)   '], new Bindings()).ok).toBe(true);
  });

  it("When a measure of another width moves a table's padding, Then the row still matches (9.9 where the doc shows 12.3)", () => {
    const bindings = withVary([{ sample: '12.3', type: '9..30' }]);
    const row = '| 2026-12-01 20:58:37.849000 |                   12.3 |';
    expect(matchBlock([row], ['| 2026-12-02 19:28:32.485140 |                    9.9 |'], bindings).ok).toBe(true);
    expect(matchBlock([row], ['| 2026-12-02 19:28:32.485140 |                   31.0 |'], bindings).ok).toBe(false);
  });

  it('When a single space separates two words, Then the output must have exactly one space there', () => {
    expect(matchBlock(['claimed true'], ['claimed  true'], new Bindings()).ok).toBe(false);
    expect(matchBlock(['claimed  true'], ['claimed true'], new Bindings()).ok).toBe(true);
  });

  it('When a UUID in the doc stands where the output has another UUID, Then it matches and binds the sample to it', () => {
    const result = matchBlock([`submitted ${ID}`], [`submitted ${REAL}`], new Bindings());
    expect(result.ok).toBe(true);
    if (result.ok)
      expect(result.bindings.substitute(`curl localhost:8000/exports/${ID}`)).toBe(
        `curl localhost:8000/exports/${REAL}`,
      );
  });

  it('When the same sample UUID must show two different values, Then it fails saying so', () => {
    const result = matchBlock([`POST ${ID}`, `GET ${ID}`], [`POST ${REAL}`, `GET ${REAL2}`], new Bindings());
    expect(result).toMatchObject({ ok: false, expectedIndex: 1, why: expect.stringContaining(`stands for ${REAL}`) });
  });

  it('When two different sample UUIDs show one value, Then it fails: they stand for two jobs', () => {
    const result = matchBlock([`old ${ID}`, `new ${OTHER}`], [`old ${REAL}`, `new ${REAL}`], new Bindings());
    expect(result).toMatchObject({ ok: false, why: expect.stringContaining('must be another uuid') });
  });

  it('When a declared pid sees something that is not a number, Then the line does not match (a placeholder has a type)', () => {
    expect(
      matchBlock(['worker 25703 ready'], ['worker abc ready'], withVary([{ sample: '25703', type: 'pid' }])).ok,
    ).toBe(false);
    expect(
      matchBlock(['worker 25703 ready'], ['worker 9 ready'], withVary([{ sample: '25703', type: 'pid' }])).ok,
    ).toBe(true);
  });

  it('When a duration varies, Then any number with a unit matches, and two of them need not be equal', () => {
    const bindings = withVary([{ sample: '0ms', type: 'duration' }]);
    expect(matchBlock(['setup 0ms, environment 0ms'], ['setup 1ms, environment 12ms'], bindings).ok).toBe(true);
    expect(matchBlock(['setup 0ms'], ['setup soon'], bindings).ok).toBe(false);
  });

  it('When a timestamp is shown, Then any timestamp of either form matches, and text does not', () => {
    expect(
      matchBlock(
        ['"created_at":"2026-11-29T09:49:23.014Z"'],
        ['"created_at":"2027-01-02T03:04:05.678Z"'],
        new Bindings(),
      ).ok,
    ).toBe(true);
    expect(matchBlock(['| 2026-11-30 14:51:03.376000 |'], ['| 2026-12-01 20:00:00.000001 |'], new Bindings()).ok).toBe(
      true,
    );
    expect(
      matchBlock(['"created_at":"2026-11-29T09:49:23.014Z"'], ['"created_at":"yesterday"'], new Bindings()).ok,
    ).toBe(false);
  });

  it('When a sample only appears inside a longer number, Then it is not a placeholder there', () => {
    expect(
      matchBlock(['pid 25703, port 125703'], ['pid 41, port 125703'], withVary([{ sample: '25703', type: 'pid' }])).ok,
    ).toBe(true);
  });

  it('When a later block starts at the cursor, Then lines before the cursor are not matched again', () => {
    expect(matchBlock(['ready'], ['ready', 'other'], new Bindings(), 1).ok).toBe(false);
  });
});

describe('placeholders', () => {
  it('When a block is only values, Then it has no literal line; words around values count', () => {
    expect(literalLineCount([ID, '...', '14:07:53'], [{ sample: '14:07:53', type: 'clock' }])).toBe(0);
    expect(literalLineCount([`{"id":"${ID}","status":"queued"}`], [])).toBe(1);
  });

  it('When a declared sample is not of its type, is unknown, or is absent from the block, Then each is a problem', () => {
    expect(varyProblems(['worker 25703'], [{ sample: '25703', type: 'pidd' }])[0]).toMatch(/"pidd" is not a type/);
    expect(varyProblems(['worker ab'], [{ sample: 'ab', type: 'pid' }])[0]).toMatch(/not a process id/);
    expect(varyProblems(['worker 1'], [{ sample: '25703', type: 'pid' }])[0]).toMatch(/does not appear/);
  });

  it('When a UUID in a command was never seen in output, Then it stays as written (an id the doc made up)', () => {
    const bindings = new Bindings();
    expect(bindings.substitute('curl /exports/00000000-0000-4000-8000-000000000000')).toBe(
      'curl /exports/00000000-0000-4000-8000-000000000000',
    );
    expect(
      matchBlock(['Job 00000000-0000-4000-8000-000000000000 does not exist'], [`Job ${REAL} does not exist`], bindings)
        .ok,
    ).toBe(false);
  });
});

describe('outputLines', () => {
  it('When output holds colours, carriage returns and CRLF, Then lines read as a terminal shows them', () => {
    expect(outputLines('\x1b[32m✓ pass\x1b[39m  ok\r\nHTTP/1.1 202 Accepted\r\nprogress 10%\rprogress 100%\n')).toEqual(
      ['✓ pass  ok', 'HTTP/1.1 202 Accepted', 'progress 100%', ''],
    );
  });
});

describe('samples next to punctuation', () => {
  it('When a UUID follows a dot (a file named job.token.json), Then it is found and substituted there', () => {
    const bindings = new Bindings();
    const result = matchBlock(
      [`"result_ref": "${ID}.${OTHER}.json"`],
      [`"result_ref": "${REAL}.${REAL2}.json"`],
      bindings,
    );
    expect(result.ok).toBe(true);
    if (result.ok)
      expect(result.bindings.substitute(`cat artifacts/${ID}.${OTHER}.json`)).toBe(
        `cat artifacts/${REAL}.${REAL2}.json`,
      );
  });

  it('When a declared number is part of a longer decimal, Then it is not a placeholder there', () => {
    expect(
      matchBlock(['took 1.25 s, then 25 ms'], ['took 1.25 s, then 9 ms'], withVary([{ sample: '25', type: 'int' }])).ok,
    ).toBe(true);
  });
});

describe('counts above zero', () => {
  it('When a count varies, Then any number above zero matches it and zero does not', () => {
    const expected = ['without the lock: counter 100 of 200 (100 lost)'];
    const bindings = withVary([{ sample: '100', type: 'count' }]);
    expect(matchBlock(expected, ['without the lock: counter 117 of 200 (83 lost)'], bindings).ok).toBe(true);
    expect(matchBlock(expected, ['without the lock: counter 200 of 200 (0 lost)'], bindings).ok).toBe(false);
  });
});

describe('ranges', () => {
  it('When a measure is declared as a range, Then a value inside it matches and one outside does not', () => {
    const expected = ['|                   12.3 |'];
    const bindings = withVary([{ sample: '12.3', type: '9..30' }]);
    expect(matchBlock(expected, ['|                   10.8 |'], bindings).ok).toBe(true);
    expect(matchBlock(expected, ['|                    2.0 |'], bindings).ok).toBe(false);
    expect(varyProblems(['took 4 s'], [{ sample: '4', type: '9..30' }])[0]).toMatch(/is not a number from 9 to 30/);
  });
});

describe('compact stamps', () => {
  it('When a slot key holds a compact UTC time, Then a stamp placeholder matches it there and text does not', () => {
    const bindings = withVary([{ sample: '20261201T205325.220', type: 'stamp' }]);
    expect(
      matchBlock(
        ['slot shop-export:each:20261201T205325.220 scheduled'],
        ['slot shop-export:each:20270102T030405.678 scheduled'],
        bindings,
      ).ok,
    ).toBe(true);
    expect(
      matchBlock(
        ['slot shop-export:each:20261201T205325.220 scheduled'],
        ['slot shop-export:each:soon scheduled'],
        bindings,
      ).ok,
    ).toBe(false);
  });
});

describe('measures, versions and alternatives', () => {
  it('When a one-digit measure is declared in a block, Then it is a placeholder there, and a literal again in the next block', () => {
    const bindings = new Bindings();
    bindings.declare([{ sample: '3', type: 'int' }]);
    expect(matchBlock(['slicesDone: 3 of 20'], ['slicesDone: 2 of 20'], bindings).ok).toBe(true);
    bindings.declare([]);
    expect(matchBlock(['slicesDone: 3 of 20'], ['slicesDone: 2 of 20'], bindings).ok).toBe(false);
    expect(varyProblems(['pid 7'], [{ sample: '7', type: 'pid' }])[0]).toMatch(/too short to follow through the walk/);
  });

  it('When a version varies, Then any version matches, and text does not', () => {
    const bindings = withVary([{ sample: '10.11.19-MariaDB-0+deb12u1', type: 'version' }]);
    expect(matchBlock(['healthy 10.11.19-MariaDB-0+deb12u1'], ['healthy 8.4.3'], bindings).ok).toBe(true);
    expect(matchBlock(['healthy 10.11.19-MariaDB-0+deb12u1'], ['healthy soon'], bindings).ok).toBe(false);
  });

  it('When the outcome depends on the machine, Then alternatives match each of them and nothing else', () => {
    const bindings = withVary([{ sample: 'already running', type: 'already running|started redis and mysql' }]);
    expect(
      matchBlock(['up (native mode): already running'], ['up (native mode): started redis and mysql'], bindings).ok,
    ).toBe(true);
    expect(matchBlock(['up (native mode): already running'], ['up (native mode): failed'], bindings).ok).toBe(false);
    expect(varyProblems(['x already running'], [{ sample: 'already running', type: 'running|stopped' }])[0]).toMatch(
      /is not one of: running, stopped/,
    );
  });
});
