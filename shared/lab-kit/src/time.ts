export const SECOND = 1000;
export const MINUTE = 60 * SECOND;

/** 1500 -> "1.5 s", 600000 -> "10 min". */
export function formatDuration(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms >= 1000) return `${Number((ms / 1000).toFixed(2))} s`;
  return `${ms} ms`;
}

/** A barrier: every waiter on `wait` is released at the same moment, when `open()` is called. */
export function barrier(): { wait: Promise<void>; open: () => void } {
  let open = () => {};
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Polls `probe` until it returns a value other than undefined/false, or throws
 * after `timeoutMs` with `what` in the message, so a hang becomes a clear failure.
 * An error thrown by the probe counts as "not yet" (a service may be starting), but
 * an aborted `signal` stops the wait at once with the signal's reason.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  {
    timeoutMs = 10 * SECOND,
    intervalMs = 50,
    signal,
  }: { timeoutMs?: number; intervalMs?: number; signal?: AbortSignal } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    signal?.throwIfAborted();
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    signal?.throwIfAborted();
    if (Date.now() > deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await sleep(intervalMs, signal);
  }
}
