// For test files only (it imports vitest): `@tasks-lab/lab-kit/testing`.
// A can-fail suite proves that every check of a lab can fail: each case breaks a real
// part (a broken variant of the code under test, a fixture process, a fault point),
// runs the check's scenario for real, and expects the check to fail. A case never
// hands a judge invented evidence. `coversEveryCheck()` fails while any check of the
// lab has no case, so a new check cannot arrive without its proof.
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { expect, it } from 'vitest';
import { findCheck, runCheck, type Check, type CheckResult } from './checks.ts';

export { expectJsonTimeout, TIMEOUT_SLACK_MS } from './http-timeouts-testing.ts';

export interface BreakOptions {
  /** The observation must match this too (it says what the broken part did). */
  observed?: RegExp;
  /** vitest's time limit for this case. @defaultValue 60000 */
  timeoutMs?: number;
}

export interface CanFailSuite<D> {
  /** One case: with `makeDeps()`'s broken parts, the check `id` must fail. */
  breaks(id: string, when: string, makeDeps: () => D | Promise<D>, options?: BreakOptions): void;
  /** The closing case: every check id of the lab has a `breaks` case above. */
  coversEveryCheck(): void;
}

/** `build` is the lab's buildChecks: building checks must not start anything. */
export function canFailSuite<D>(build: (deps?: D) => readonly Check[]): CanFailSuite<D> {
  const covered = new Set<string>();
  return {
    breaks(id, when, makeDeps, options = {}) {
      covered.add(id);
      it(`When ${when}, Then check "${id}" fails`, { timeout: options.timeoutMs ?? 60_000 }, async () => {
        const check = findCheck(build(await makeDeps()), id);
        const result: CheckResult = await runCheck(check);
        expect(result.ok, `check ${id} passed with a broken part; observed: ${result.observed}`).toBe(false);
        if (options.observed) expect(result.observed).toMatch(options.observed);
      });
    },
    coversEveryCheck() {
      it('Every check of this lab has a can-fail case', () => {
        const missing = build()
          .map((c) => c.id)
          .filter((id) => !covered.has(id));
        expect(missing, `checks with no can-fail case: ${missing.join(', ')}`).toEqual([]);
      });
    },
  };
}

/** A stand-in server on a free port, for tests that point a lab at the wrong service. */
export interface ImpostorServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Starts a server that is not Redis (nor MySQL): every connection gets an HTTP 400 answer
 * and is closed. A test points a lab's service port at it to see the lab refuse it by name
 * instead of retrying for ever, without touching the real services.
 */
export async function startImpostorServer(): Promise<ImpostorServer> {
  const connections = new Set<Socket>();
  const server = createServer((socket) => {
    connections.add(socket);
    socket.on('error', () => {}); // a client that hangs up first is no news here
    socket.on('close', () => connections.delete(socket));
    socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      for (const socket of connections) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * `target` with its calls of `methods` counted, for a test that asserts round trips (how many
 * queries a claim sends on a pool, how many connections it borrows for a transaction). Every
 * other property is the target's own.
 */
export function countingCalls<T extends object, K extends keyof T & string>(
  target: T,
  methods: readonly K[],
): { counted: T; calls: Record<K, number> } {
  const calls = Object.fromEntries(methods.map((method) => [method, 0])) as Record<K, number>;
  const counted = new Proxy(target, {
    get(object, key, receiver) {
      const value = Reflect.get(object, key, receiver);
      if (typeof value !== 'function' || !(methods as readonly (string | symbol)[]).includes(key)) return value;
      return (...args: unknown[]) => {
        calls[key as K]++;
        return (value as (...a: unknown[]) => unknown).apply(object, args);
      };
    },
  });
  return { counted, calls };
}
