// Named fault points: the one way a drill breaks a lab process on purpose.
// Code marks a point where a real failure could strike (`await faults.hit('after-rename')`);
// a drill switches faults on for one process through one environment variable:
//
//   LAB_FAULTS="after-rename:crash:once,before-ack:delay-500:always"
//
//   <point>:<action>[:<count>]
//   action: crash      SIGKILL this process on the spot (no finally, no close())
//           throw      throw an InjectedFault (code "fault-injected")
//           delay-<ms> wait that long, then go on
//           hang       never go on (until the process is killed)
//   count:  once (the default) | always | <n>, counted per process
//
// Job payloads stay business-only: nothing in a message says "crash here". A drill
// starts the replacement process without LAB_FAULTS, so it runs clean.
import { CodedError } from './errors.ts';
import { sleep } from './time.ts';

export const FAULTS_ENV = 'LAB_FAULTS';

export type FaultAction = { kind: 'crash' } | { kind: 'throw' } | { kind: 'hang' } | { kind: 'delay'; ms: number };

export interface FaultRule {
  point: string;
  action: FaultAction;
  /** How many more times it fires in this process; Infinity for `always`. */
  times: number;
}

/** What `throw` raises: a coded error, so a handler can tell an injected fault from a real one. */
export class InjectedFault extends CodedError {
  constructor(readonly point: string) {
    super('fault-injected', `fault injected at ${point}`);
  }
}

function parseAction(text: string, rule: string): FaultAction {
  if (text === 'crash' || text === 'throw' || text === 'hang') return { kind: text };
  const delay = /^delay-(\d{1,7})$/.exec(text);
  if (delay?.[1] !== undefined) return { kind: 'delay', ms: Number(delay[1]) };
  throw new Error(`${FAULTS_ENV}: "${rule}" has action "${text}"; use crash, throw, hang or delay-<ms>`);
}

function parseTimes(text: string | undefined, rule: string): number {
  if (text === undefined || text === 'once') return 1;
  if (text === 'always') return Infinity;
  if (/^[1-9]\d{0,5}$/.test(text)) return Number(text);
  throw new Error(`${FAULTS_ENV}: "${rule}" has count "${text}"; use once, always or a whole number from 1`);
}

/** Parses a LAB_FAULTS value; an unknown point name is an error naming the points there are. */
export function parseFaults(spec: string, knownPoints: readonly string[]): FaultRule[] {
  const rules: FaultRule[] = [];
  for (const rule of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [point = '', action = '', count, ...extra] = rule.split(':');
    if (extra.length > 0 || action === '')
      throw new Error(`${FAULTS_ENV}: "${rule}" is not <point>:<action>[:<count>]`);
    if (!knownPoints.includes(point)) {
      throw new Error(
        `${FAULTS_ENV}: unknown fault point "${point}"; this process has: ${knownPoints.join(', ') || 'none'}`,
      );
    }
    rules.push({ point, action: parseAction(action, rule), times: parseTimes(count, rule) });
  }
  return rules;
}

/** Builds one rule of a LAB_FAULTS value, for drills: faultRule('after-rename', 'crash') -> "after-rename:crash:once". */
export function faultRule(
  point: string,
  action: 'crash' | 'throw' | 'hang' | `delay-${number}`,
  count: 'once' | 'always' | number = 'once',
): string {
  return `${point}:${action}:${count}`;
}

export interface FaultPoints<P extends string> {
  /** The points this process declares. */
  readonly points: readonly P[];
  /** Passes through unless a rule for `point` is switched on and has firings left. */
  hit(point: P): Promise<void>;
  /** The active rules in words, for a process's ready line ("faults: after-rename:crash:once" or "faults: none"). */
  describe(): string;
}

/**
 * Declares a process's fault points and reads LAB_FAULTS once. A rule naming a point
 * that is not declared is refused at start-up, so a typo cannot make a drill pass by
 * silently injecting nothing.
 */
export function faultPoints<const P extends string>(
  points: readonly P[],
  env: NodeJS.ProcessEnv = process.env,
): FaultPoints<P> {
  const rules = parseFaults(env[FAULTS_ENV] ?? '', points);
  return {
    points,
    async hit(point) {
      const rule = rules.find((r) => r.point === point && r.times > 0);
      if (!rule) return;
      rule.times -= 1;
      switch (rule.action.kind) {
        case 'crash':
          process.kill(process.pid, 'SIGKILL');
          return new Promise<void>(() => {}); // the signal is on its way; nothing after this point runs
        case 'throw':
          throw new InjectedFault(point);
        case 'hang':
          return new Promise<void>(() => {});
        case 'delay':
          await sleep(rule.action.ms);
          return;
      }
    },
    describe() {
      if (rules.length === 0) return 'faults: none';
      const count = (t: number) => (t === Infinity ? 'always' : String(t));
      const action = (a: FaultAction) => (a.kind === 'delay' ? `delay-${a.ms}` : a.kind);
      return `faults: ${rules.map((r) => `${r.point}:${action(r.action)}:${count(r.times)}`).join(',')}`;
    },
  };
}
