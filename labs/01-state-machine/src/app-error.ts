/**
 * The one error class of the API. `code` is a stable kebab-case name a client can
 * switch on; `status` is the HTTP status the error middleware answers with.
 */
export type AppErrorCode =
  | 'invalid-body'
  | 'invalid-id'
  | 'invalid-path'
  | 'bad-request'
  | 'job-not-found'
  | 'invalid-transition'
  | 'not-found'
  | 'method-not-allowed'
  | 'internal';

/**
 * What an AppError's code may be: lesson 01's codes above, or a code a later lab adds
 * (`missing-products`, `idempotency-key-reused`). `string & {}` keeps the editor's
 * completion of lesson 01's names while accepting any other string.
 */
export type ErrorCode = AppErrorCode | (string & {});

export interface Issue {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly issues?: Issue[];
  /** Headers the answer carries, such as `Retry-After` on a 503 or a 429 (lesson 13). */
  readonly headers?: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    message: string,
    status: number,
    options: { issues?: Issue[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    // The subclass name (InvalidTransitionError, JobNotFoundError) shows up in logs and stack traces.
    this.name = new.target.name;
    this.code = code;
    this.status = status;
    this.issues = options.issues;
    this.headers = options.headers;
  }
}
