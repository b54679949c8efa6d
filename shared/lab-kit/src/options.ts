// One validated options module per lab. Each option has a name, the environment
// variable that sets it, the course's value as its default, and bounds. Options are
// read once, at start-up: a zero, negative or non-numeric timing is refused with a
// message naming the variable and its bounds, instead of surfacing later as a job
// that never times out or a loop that spins.
//
//   export const WORKER_OPTIONS = defineOptions({
//     lockDurationMs: durationMs('LOCK_DURATION_MS', 30_000),
//     concurrency: wholeNumber('CONCURRENCY', 2, { min: 1, max: 64 }),
//   });
//   const options = WORKER_OPTIONS.read({ overrides: { concurrency: 1 } });
import { z } from 'zod';

export interface OptionSpec<T> {
  /** The environment variable that sets it. */
  env: string;
  default: T;
  /** Parses a value from the environment (a string) or an override (already typed). */
  schema: z.ZodType<T>;
  /** The bounds in words, for the error message: "a whole number of milliseconds from 1 to 3600000". */
  expects: string;
}

/** A duration in milliseconds: a whole number, at least `min` (1 by default: a zero timing is refused). */
export function durationMs(
  env: string,
  defaultMs: number,
  bounds: { min?: number; max?: number } = {},
): OptionSpec<number> {
  const min = bounds.min ?? 1;
  const max = bounds.max ?? 24 * 60 * 60 * 1000;
  return {
    env,
    default: defaultMs,
    schema: z.coerce.number().int().min(min).max(max),
    expects: `a whole number of milliseconds from ${min} to ${max}`,
  };
}

export function wholeNumber(
  env: string,
  defaultValue: number,
  bounds: { min: number; max: number },
): OptionSpec<number> {
  return {
    env,
    default: defaultValue,
    schema: z.coerce.number().int().min(bounds.min).max(bounds.max),
    expects: `a whole number from ${bounds.min} to ${bounds.max}`,
  };
}

/** A name (queue, prefix): letters, digits, '.', '_' and '-', 1 to 100 of them. No ':' (BullMQ's key separator). */
export function name(env: string, defaultValue: string): OptionSpec<string> {
  return {
    env,
    default: defaultValue,
    schema: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/),
    expects: "1 to 100 letters, digits, '.', '_' or '-'",
  };
}

export function choice<const T extends string>(
  env: string,
  defaultValue: T,
  values: readonly [T, ...T[]],
): OptionSpec<T> {
  return {
    env,
    default: defaultValue,
    schema: z.enum(values) as unknown as z.ZodType<T>,
    expects: `one of ${values.join(', ')}`,
  };
}

export function text(env: string, defaultValue: string): OptionSpec<string> {
  return { env, default: defaultValue, schema: z.string().min(1), expects: 'a non-empty text' };
}

type Values<S extends Record<string, OptionSpec<unknown>>> = { [K in keyof S]: S[K]['default'] };

export class OptionsError extends Error {
  override name = 'OptionsError';
  constructor(readonly problems: string[]) {
    super(`invalid options: ${problems.join('; ')}`);
  }
}

export interface ReadOptions<V> {
  /** @defaultValue process.env */
  env?: NodeJS.ProcessEnv;
  /** Values set in code (tests, drills); they win over the environment and are checked the same way. */
  overrides?: Partial<V>;
}

export interface OptionsDefinition<S extends Record<string, OptionSpec<unknown>>> {
  readonly specs: S;
  /** The course's values. */
  defaults(): Values<S>;
  /** Parses every option once; all problems are reported together. */
  read(options?: ReadOptions<Values<S>>): Values<S>;
  /** The environment that sets these values, for starting a child process with them. */
  toEnv(values: Partial<Values<S>>): Record<string, string>;
}

/** Every environment variable a loaded options definition reads: a failed check's rerun command repeats the ones set. */
const declaredNames = new Set<string>();

/** The environment variables of every options definition loaded so far, sorted. */
export const declaredOptionNames = (): string[] => [...declaredNames].sort();

export function defineOptions<S extends Record<string, OptionSpec<unknown>>>(specs: S): OptionsDefinition<S> {
  for (const spec of Object.values(specs)) declaredNames.add(spec.env);
  return {
    specs,
    defaults() {
      return Object.fromEntries(Object.entries(specs).map(([key, spec]) => [key, spec.default])) as Values<S>;
    },
    read({ env = process.env, overrides = {} } = {}) {
      const problems: string[] = [];
      const values: Record<string, unknown> = {};
      for (const [key, spec] of Object.entries(specs)) {
        const override = (overrides as Record<string, unknown>)[key];
        const raw = override !== undefined ? override : env[spec.env];
        if (raw === undefined || raw === '') {
          values[key] = spec.default;
          continue;
        }
        const parsed = spec.schema.safeParse(raw);
        if (parsed.success) values[key] = parsed.data;
        else
          problems.push(
            `${override !== undefined ? key : spec.env} must be ${spec.expects}, got ${JSON.stringify(String(raw)).slice(0, 60)}`,
          );
      }
      if (problems.length > 0) throw new OptionsError(problems);
      return values as Values<S>;
    },
    toEnv(values) {
      const env: Record<string, string> = {};
      for (const [key, value] of Object.entries(values)) {
        const spec = specs[key];
        if (spec && value !== undefined) env[spec.env] = String(value);
      }
      return env;
    },
  };
}

/** The values a definition reads: `OptionValues<typeof LEASE_OPTIONS>`. */
export type OptionValues<D extends { defaults(): unknown }> = ReturnType<D['defaults']>;

/**
 * Reads a lab's options, whose specs include the lab below's (`...below.specs`), then hands the
 * lab below's part back to that lab's own reader, so its rules still apply to it (the bounds one
 * option sets for another, its `USE_COURSE_TIMINGS`). The result is the lab's values with the
 * lab below's part as its reader returned it.
 */
export function readOnTopOf<S extends B, B extends Record<string, OptionSpec<unknown>>>(
  definition: OptionsDefinition<S>,
  below: OptionsDefinition<B>,
  readBelow: (options: ReadOptions<Values<B>>) => Values<B>,
  options: ReadOptions<Values<S>> = {},
): Values<S> {
  const values = definition.read(options);
  const belowPart = Object.fromEntries(
    Object.keys(below.specs).map((key) => [key, values[key as keyof Values<S>]]),
  ) as Partial<Values<B>>;
  return { ...values, ...readBelow({ env: {}, overrides: belowPart }) };
}

/**
 * A reader of the short timings verify and the tests run with: `read` with `short` under the
 * caller's own overrides (which win), so the code paths are the course's and only the waits shrink.
 * The environment still applies, `USE_COURSE_TIMINGS=1` included (the lab's reader honours it).
 */
export function withShortTimings<V>(
  read: (options: ReadOptions<V>) => V,
  short: Readonly<Partial<V>>,
): (env?: NodeJS.ProcessEnv, overrides?: Partial<V>) => V {
  return (env = process.env, overrides = {}) => read({ env, overrides: { ...short, ...overrides } });
}
