// One bound for a promise that has no timeout of its own (a send to BullMQ, a PUBLISH).

/** Rejects with `timeoutError()` if `work` has not settled within `ms` (the work itself goes on). */
export async function bounded<T>(work: Promise<T>, ms: number, timeoutError: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeoutError()), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
