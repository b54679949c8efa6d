// Lesson 16's step 1: structured phase logs. One JSON line per phase of an export, in every
// component (api, publisher, worker, scanner), so one job's whole path can be read by its id:
//
//   {"level":"info","time":"…","pid":4242,"component":"worker","event":"export_phase",
//    "job_id":"…","phase":"claimed","message_id":"…","lease_token":"…","attempt":1,
//    "trace_id":"…","span_id":"…","queue":"exports.fast"}
//
//   job_id        the business id: it ties every line of one export together
//   message_id    the delivery: the outbox event id, which is also the BullMQ job id (lesson 12),
//                 so a duplicate delivery and a redelivery after recovery tell apart
//   lease_token   the right to execute: a new claim has a new token, only it may finish
//   attempt       the row's attempts (executions), not BullMQ's deliveries
//   trace_id      the W3C trace of the submit (src/trace.ts): one per job, end to end
//
// What NEVER goes in a line: a product's description (the job's snapshot) and any credential.
// Three nets, each catching what the one before could miss:
//   1. records are built from an ALLOW-LIST: the known fields, plus extras that are plain
//      values (a string, cut short; a number; a boolean). An object (a row, a snapshot, a
//      request) is dropped, whatever its key; a PhaseRecord has no place for one.
//   2. pino's redact blanks snapshot / description / password / authorization keys, for code
//      that logs through `logger.pino` directly (a debugging line someone forgot).
//   3. errors are serialised to { type, code, errno, message } only, the message cut short.
//      Why not pino's standard serialiser: it copies every enumerable property of the error,
//      and mysql2 errors carry `sql` with the PARAMETERS INLINED (a failed INSERT of a job
//      logs its snapshot, descriptions and all) plus `sqlMessage`; ioredis errors can carry
//      the command and its arguments (`command.args`: an AUTH carries the password).
//      The message itself may still quote one value (MySQL's "Duplicate entry '…' for key"):
//      our unique keys are ids and idempotency keys, never a description.
import pino from 'pino';
import type { LogLevel } from './options.ts';

export type Phase =
  | 'accepted'
  | 'dispatched'
  | 'received'
  | 'claimed'
  | 'not-claimed'
  | 'busy'
  | 'published'
  | 'stopped'
  | 'failed'
  | 'requeued'
  | 'redispatched'
  | 'dead-lettered'
  | 'cancelled';

/** The fields every phase line has (the course's log_phase), with the trace when there is one. */
export interface PhaseFields {
  job_id: string;
  phase: Phase;
  /** The outbox event id = the BullMQ job id of a send or a delivery. */
  message_id?: string | null;
  lease_token?: string | null;
  /** The row's attempts (executions so far, counting this claim). */
  attempt?: number | null;
  trace_id?: string;
  span_id?: string;
}

/** A plain value: the only kind of extra a line may carry (queue, reason, published, …). */
export type PhaseExtra = string | number | boolean | null | undefined;

export interface PhaseRecord extends PhaseFields {
  [extra: string]: PhaseExtra;
}

/** A failed phase: the record and the error (serialised by safeError, never as it is). */
export type PhaseErrorRecord = PhaseFields & { err: unknown; [extra: string]: unknown };

export interface PhaseLogger {
  readonly component: string;
  /** One info line for the phase. */
  phase(record: PhaseRecord): void;
  /** One error line for the phase, with the error's type, code, errno and (short) message only. */
  error(record: PhaseErrorRecord): void;
  /** The underlying pino logger (redaction and the safe error serialiser apply to it too). */
  readonly pino: pino.Logger;
  /**
   * An earlier lesson's plain line about one job (lesson 15's "claimed job …"), printed as it is
   * at `info` and below, dropped above it: LOG_LEVEL=warn keeps only warnings and errors.
   */
  plain(line: string): void;
}

export interface PhaseLoggerOptions {
  /** api, publisher, worker, scanner. */
  component: string;
  /** @defaultValue 'info' ('silent' writes nothing) */
  level?: LogLevel;
  /** @defaultValue stdout, written synchronously (see below) */
  destination?: pino.DestinationStream;
}

/** Every phase line says this, so a reader can pick them out of a process's other output. */
export const PHASE_EVENT = 'export_phase';

/** Longest string an extra or an error message keeps. */
export const MAX_TEXT = 200;

/** pino's redaction, the second net (paths in pino's syntax: `*.x` is x one level down). */
export const REDACT_PATHS = [
  'snapshot',
  '*.snapshot',
  'description',
  '*.description',
  'password',
  '*.password',
  'authorization',
  '*.authorization',
];

const EXTRA_KEY = /^[a-z][a-z0-9_]{0,39}$/;
/** Keys an extra may not take: the fields above, and what pino itself writes. */
const FIELD_KEYS = new Set([
  'job_id',
  'phase',
  'message_id',
  'lease_token',
  'attempt',
  'trace_id',
  'span_id',
  'err',
  'event',
  'component',
  'level',
  'time',
  'pid',
  'msg',
]);

const cut = (text: string): string => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text);

/** What a log line keeps of an error. Nothing else of it is ever written (see the header). */
export interface SafeError {
  type: string;
  code?: string | number;
  errno?: number;
  message: string;
}

/** The SafeErrors made here: pino's serialiser passes them through (a look-alike object is not one). */
const madeSafe = new WeakSet<SafeError>();

/** An error, as a log line may show it: its type, code, errno and a cut message; never `sql`, `args` or a cause. */
export function safeError(err: unknown): SafeError {
  if (err !== null && typeof err === 'object' && madeSafe.has(err as SafeError)) return err as SafeError;
  const safe = describeError(err);
  madeSafe.add(safe);
  return safe;
}

function describeError(err: unknown): SafeError {
  if (!(err instanceof Error)) {
    // A thrown string is cut; a thrown object (a row?) is not shown at all.
    return {
      type: typeof err,
      message: typeof err === 'string' ? cut(err) : `a thrown ${err === null ? 'null' : typeof err}`,
    };
  }
  const { code, errno } = err as { code?: unknown; errno?: unknown };
  return {
    type: err.name,
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    ...(typeof errno === 'number' ? { errno } : {}),
    message: cut(err.message),
  };
}

/**
 * pino copies an error's FULL message into `msg` when no message is given (`logger.error(err)`,
 * `logger.error({ err })`): this hook gives it the cut one first, and wraps a bare error as `{ err }`.
 */
function safeMessages(this: pino.Logger, args: Parameters<pino.LogFn>, method: pino.LogFn): void {
  const [first, second] = args as unknown[];
  const err =
    first instanceof Error
      ? first
      : first !== null && typeof first === 'object'
        ? (first as { err?: unknown }).err
        : undefined;
  if (err === undefined || typeof second === 'string') {
    method.apply(this, args);
    return;
  }
  const fields = first instanceof Error ? { err } : (first as object);
  method.apply(this, [fields, safeError(err).message] as unknown as Parameters<pino.LogFn>);
}

/** The allow-list: the known fields in a fixed order, then plain extras under plain keys. */
function phaseLine(record: PhaseFields & Record<string, unknown>): Record<string, unknown> {
  const line: Record<string, unknown> = {
    event: PHASE_EVENT,
    job_id: record.job_id,
    phase: record.phase,
    message_id: record.message_id ?? null,
    lease_token: record.lease_token ?? null,
    attempt: record.attempt ?? null,
  };
  if (record.trace_id) line.trace_id = record.trace_id;
  if (record.span_id) line.span_id = record.span_id;
  for (const [key, value] of Object.entries(record)) {
    if (FIELD_KEYS.has(key) || !EXTRA_KEY.test(key)) continue;
    if (typeof value === 'string') line[key] = cut(value);
    else if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean' || value === null)
      line[key] = value;
    // Anything else (an object, an array, a function) is dropped: that is where a snapshot would hide.
  }
  return line;
}

/**
 * Stdout, written synchronously: a phase line is on its way out before the next step runs, so
 * a process killed right after a claim (the drills' SIGKILL) still leaves its `claimed` line.
 */
export const stdoutDestination = (): pino.DestinationStream => pino.destination({ dest: 1, sync: true });

export function createPhaseLogger(options: PhaseLoggerOptions): PhaseLogger {
  const { component } = options;
  const logger = pino(
    {
      level: options.level ?? 'info',
      base: { pid: process.pid, component },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // The third net, for `logger.pino.error({ err })` and `logger.pino.error(err)` as well.
      serializers: { err: safeError },
      hooks: { logMethod: safeMessages },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    },
    options.destination ?? stdoutDestination(),
  );
  return {
    component,
    pino: logger,
    plain: logger.isLevelEnabled('info') ? (line) => console.log(line) : () => {},
    phase: (record) => logger.info(phaseLine(record)),
    error: (record) => {
      const err = safeError(record.err);
      logger.error({ ...phaseLine(record), err }, err.message);
    },
  };
}

// ---- reading the lines back (the checks, the failure matrix) -------------------------

/** One phase line as read back from a process's output. */
export interface PhaseLine extends PhaseFields {
  component: string;
  level: string;
  time: string;
  [extra: string]: unknown;
}

/** The phase lines in `text` (a process's output, other lines in between), in order. A cut-off last line is skipped. */
export function parsePhaseLines(text: string): PhaseLine[] {
  const lines: PhaseLine[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('{')) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue;
    }
    if (isPhaseLine(parsed)) lines.push(parsed);
  }
  return lines;
}

function isPhaseLine(value: unknown): value is PhaseLine {
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return v.event === PHASE_EVENT && typeof v.job_id === 'string' && typeof v.phase === 'string';
}
