// The lesson 01 API as a real OS process: the checks and the restart drill talk to it
// over HTTP exactly as a browser or curl would, and kill it for real.
import { fileURLToPath } from 'node:url';
import { launchProcess, SECOND, type LabProcess, type Resources } from '@tasks-lab/lab-kit';
import { SERVER_OPTIONS } from '../src/options.ts';

/** The entry point `pnpm start` runs. */
export const SERVER_SCRIPT = fileURLToPath(new URL('../src/server.ts', import.meta.url));

/** server.ts prints this once it accepts connections; PORT=0 lets the OS pick a free port. */
const LISTENING_LINE = /listening on (http:\/\/127\.0\.0\.1:\d+)/;

export interface ApiProcessOptions {
  /** The .ts file to run (a test passes a broken fixture server). @defaultValue SERVER_SCRIPT */
  script?: string;
  /** Extra environment variables for the process (PORT is always 0). */
  env?: NodeJS.ProcessEnv;
  /** How long to wait for the listening line; generous because tsx compiles on start. @defaultValue 30000 */
  startTimeoutMs?: number;
}

export interface ApiProcess {
  url: string;
  /** The OS process: `proc.kill()` is a crash (SIGKILL, nothing saved), `proc.stop(graceMs)` a polite stop. */
  proc: LabProcess;
}

/**
 * Starts the API on a free port and waits until it listens. The scope `res` owns the
 * process: it is killed when the scope ends or its signal aborts, so a failed or
 * timed-out check never leaves a server behind.
 */
export async function launchApi(res: Resources, options: ApiProcessOptions = {}): Promise<ApiProcess> {
  const proc = await launchProcess(options.script ?? SERVER_SCRIPT, {
    ready: LISTENING_LINE,
    readyTimeoutMs: options.startTimeoutMs ?? 30 * SECOND,
    env: { ...options.env, ...SERVER_OPTIONS.toEnv({ port: 0 }) },
    resources: res,
  });
  const url = LISTENING_LINE.exec(proc.output())?.[1];
  if (!url) throw new Error(`process ${proc.pid} printed no URL: ${proc.output()}`);
  return { url, proc };
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  json: unknown;
  text: string;
}

/** fetch that never throws on a status and reads the body once, as text and (when it parses) as JSON. */
export async function request(url: string, init: RequestInit = {}): Promise<HttpAnswer> {
  const response = await fetch(url, init);
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

/** POST a JSON body (already serialised, so tests can also send broken JSON). */
export function postJson(
  url: string,
  body: string,
  contentType = 'application/json',
  init: RequestInit = {},
): Promise<HttpAnswer> {
  return request(url, { ...init, method: 'POST', headers: { 'content-type': contentType }, body });
}
