// One way to name errors and to read a thrown value. Errors that a later step acts on
// (recovery, a retry decision, an HTTP answer) carry a stable kebab-case `code`; the
// message is for people and may change, the code may not.

/** Any thrown value as one line of text: an Error's message, anything else stringified. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'string') return err;
  try {
    return JSON.stringify(err) ?? String(err);
  } catch {
    return String(err);
  }
}

/** The stable code of an error that has one (`code` is a string), else undefined. */
export function errorCode(err: unknown): string | undefined {
  if (err !== null && typeof err === 'object' && 'code' in err && typeof err.code === 'string') return err.code;
  return undefined;
}

/**
 * Base class for errors with a stable code. `name` is the subclass's own name
 * (`new.target.name`), so a stack trace says `LeaseLostError`, not `Error`.
 *   class LeaseLostError extends CodedError { constructor(id) { super('lease-lost', `...${id}`); } }
 */
export class CodedError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}
