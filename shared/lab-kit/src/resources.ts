// Scoped resources for a check, a drill or a test: everything it starts is registered
// here and closed when the scope ends, in reverse order, whatever way it ends. When the
// scope's signal aborts (a check's time limit), the resources close at once: a killed
// worker process or a closed connection makes the pending await fail, so the check
// settles instead of hanging on and leaving processes behind for the next one.
import { errorMessage } from './errors.ts';

export type Closer = () => unknown | Promise<unknown>;

export interface Resources {
  /** The scope's signal: aborted on timeout (or by the caller). Pass it to anything that takes one. */
  readonly signal: AbortSignal;
  /** Registers `resource` to be closed by `close`; returns the resource, so `const q = res.add(open(), (q) => q.close())`. */
  add<T>(resource: T, close: (resource: T) => unknown | Promise<unknown>): T;
  /** Registers a plain clean-up step. */
  defer(close: Closer): void;
  /** Throws the abort reason if the scope was aborted: call it between steps of a long scenario. */
  throwIfAborted(): void;
}

/**
 * Runs `work` with a resource scope and closes everything it registered afterwards
 * (last registered, first closed). A clean-up step that fails is reported on stderr
 * and does not stop the others.
 */
export async function withResources<T>(
  signal: AbortSignal | undefined,
  work: (res: Resources) => Promise<T>,
): Promise<T> {
  const closers: Closer[] = [];
  const scope = new AbortController();
  let closing: Promise<void> | undefined;
  const closeAll = () =>
    (closing ??= (async () => {
      for (const close of closers.reverse()) {
        try {
          await close();
        } catch (err) {
          console.error(`clean-up step failed: ${errorMessage(err)}`);
        }
      }
    })());
  const onAbort = () => {
    scope.abort(signal?.reason);
    void closeAll();
  };
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });

  const res: Resources = {
    signal: scope.signal,
    add(resource, close) {
      closers.push(() => close(resource));
      if (scope.signal.aborted) void closeAll();
      return resource;
    },
    defer(close) {
      closers.push(close);
    },
    throwIfAborted() {
      scope.signal.throwIfAborted();
    },
  };
  try {
    return await work(res);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await closeAll();
  }
}

/**
 * Wraps a close function so that a second call returns the first call's promise
 * (lesson 05's idempotent close(), and BullMQ's): signal handlers, finally blocks and
 * tests may all call it without closing anything twice.
 */
export function idempotent(close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => (closing ??= close());
}
