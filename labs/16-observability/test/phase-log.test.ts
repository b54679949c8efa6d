// The phase logger (src/phase-log.ts): one JSON line per phase, built from an allow-list, with
// redaction and a safe error serialiser as nets behind it. Lines are collected from a pino
// destination stream; one case makes a REAL mysql2 error (a failed INSERT on a scratch
// database) to show its `sql`, parameters inlined, never reaches a line.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../src/database.ts';
import { readShortObservabilityOptions } from '../src/options.ts';
import {
  createPhaseLogger,
  MAX_TEXT,
  parsePhaseLines,
  safeError,
  type PhaseLogger,
  type PhaseRecord,
} from '../src/phase-log.ts';

function collecting(level?: Parameters<typeof createPhaseLogger>[0]['level']): {
  logger: PhaseLogger;
  lines: string[];
  text: () => string;
} {
  const lines: string[] = [];
  const logger = createPhaseLogger({
    component: 'worker',
    level,
    destination: { write: (line: string) => void lines.push(line) },
  });
  return { logger, lines, text: () => lines.join('') };
}

const marker = () => `MARKER-${randomBytes(6).toString('hex')}`;

/** A failed INSERT whose parameters hold `secret`: the server refuses the negative price (a CHECK). Parameters: [id, name, description, is_active, price_cents]. */
const INSERT_BAD_PRODUCT =
  'INSERT INTO products (id, name, description, is_active, price_cents) VALUES (?, ?, ?, ?, ?)';

describe('phase lines', () => {
  it("When a phase is logged, Then one JSON line carries the course's fields, the component and the trace, and plain extras [test:phase-line-fields]", () => {
    const { logger, lines } = collecting();
    logger.phase({
      job_id: 'j1',
      phase: 'claimed',
      message_id: 'e1',
      lease_token: 't1',
      attempt: 1,
      trace_id: 'a'.repeat(32),
      span_id: 'b'.repeat(16),
      queue: 'exports.fast',
      published: false,
    });
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 'info',
      component: 'worker',
      event: 'export_phase',
      job_id: 'j1',
      phase: 'claimed',
      message_id: 'e1',
      lease_token: 't1',
      attempt: 1,
      trace_id: 'a'.repeat(32),
      span_id: 'b'.repeat(16),
      queue: 'exports.fast',
      published: false,
    });
    expect(typeof line.time).toBe('string');
    expect(lines[0]!.endsWith('\n')).toBe(true);
  });

  it('When a record smuggles an object or a long string in as an extra, Then the object is dropped and the string cut [test:phase-line-allow-list]', () => {
    const { logger, text } = collecting();
    const secret = marker();
    const record = {
      job_id: 'j1',
      phase: 'received',
      snapshot: [{ description: secret }],
      row: { description: secret },
      note: `${'x'.repeat(MAX_TEXT)}${secret}`,
    } as unknown as PhaseRecord;
    logger.phase(record);
    expect(text()).not.toContain(secret);
    const [line] = parsePhaseLines(text());
    expect(line).toMatchObject({ job_id: 'j1', phase: 'received', message_id: null, lease_token: null, attempt: null });
    expect(line).not.toHaveProperty('snapshot');
    expect(line).not.toHaveProperty('row');
    expect(String(line?.note)).toHaveLength(MAX_TEXT + 1);
  });

  it('When code logs through logger.pino directly, Then snapshot, description, password and authorization keys are redacted [test:phase-log-redaction]', () => {
    const { logger, text } = collecting();
    const secret = marker();
    logger.pino.info(
      {
        snapshot: [{ description: secret }],
        description: secret,
        job: { snapshot: secret, description: secret },
        password: secret,
        db: { password: secret },
        headers: { authorization: `Bearer ${secret}` },
      },
      'debugging',
    );
    expect(text()).toContain('debugging');
    expect(text()).toContain('[redacted]');
    expect(text()).not.toContain(secret);
  });

  it("When level is 'silent', Then nothing is written [test:phase-log-silent]", () => {
    const { logger, lines } = collecting('silent');
    logger.phase({ job_id: 'j1', phase: 'accepted' });
    logger.error({ job_id: 'j1', phase: 'failed', err: new Error('boom') });
    logger.pino.warn('anything');
    expect(lines).toEqual([]);
  });

  it('When the output has other lines and a cut-off last line, Then parsePhaseLines returns only the whole phase lines, in order [test:phase-lines-parsed]', () => {
    const { logger, text } = collecting();
    logger.phase({ job_id: 'j1', phase: 'received' });
    logger.pino.info({ other: 1 }, 'not a phase');
    logger.phase({ job_id: 'j1', phase: 'claimed' });
    const output = `export worker 1 ready\n${text()}{"event":"export_phase","job_id":"j1","pha`;
    expect(parsePhaseLines(output).map((l) => l.phase)).toEqual(['received', 'claimed']);
  });
});

describe('errors in phase lines', () => {
  it('When a real mysql2 error (its sql holds a description marker) is logged, Then only its type, code, errno and message reach the line [test:phase-log-error-without-sql]', async () => {
    const timings = readShortObservabilityOptions({});
    const db = await freshDatabase('phaselog', { settings: timings });
    try {
      const secret = marker();
      const err = await db.pool
        .query(INSERT_BAD_PRODUCT, [9001, 'Bad product', `a description holding ${secret}`, true, -1])
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      // The premise: the driver's error does carry the parameters, inlined in its sql.
      expect(String((err as { sql?: unknown }).sql)).toContain(secret);
      const { logger, text } = collecting();
      logger.error({ job_id: 'j1', phase: 'failed', err });
      logger.pino.error(err);
      logger.pino.error({ err });
      expect(text()).not.toContain(secret);
      const [line] = parsePhaseLines(text());
      expect(Object.keys(line?.err as object).sort()).toEqual(['code', 'errno', 'message', 'type'].sort());
      expect(line?.err).toMatchObject({
        type: 'Error',
        code: expect.stringMatching(/^ER_/) as unknown,
        errno: expect.any(Number) as unknown,
      });
    } finally {
      await db.drop();
    }
  });

  it('When an ioredis-like error carries its command arguments and a long message, Then neither the arguments nor the full message are logged [test:phase-log-error-cut]', () => {
    const secret = marker();
    const err = Object.assign(new Error(`${'y'.repeat(MAX_TEXT)} ${secret}`), {
      name: 'ReplyError',
      command: { name: 'auth', args: [secret] },
      cause: new Error(secret),
    });
    const { logger, text } = collecting();
    logger.error({ job_id: 'j1', phase: 'failed', err });
    logger.pino.error(err);
    expect(text()).not.toContain(secret);
    expect(safeError(err)).toEqual({ type: 'ReplyError', message: `${'y'.repeat(MAX_TEXT)}…` });
  });

  it('When something that is not an Error is thrown (a row), Then the line says what kind of value it was, not what it held [test:phase-log-thrown-object]', () => {
    const secret = marker();
    const { logger, text } = collecting();
    logger.error({ job_id: 'j1', phase: 'failed', err: { description: secret } });
    expect(text()).not.toContain(secret);
    expect(parsePhaseLines(text())[0]?.err).toEqual({ type: 'object', message: 'a thrown object' });
  });
});
