// The lesson 01 API as a real OS process: the checks and the restart drill talk to it
// over HTTP exactly as a browser or curl would, and kill it for real.
import { fileURLToPath } from 'node:url';
import { startTsProcess, type Exit, type LabProcess } from '@tasks-lab/lab-kit';

/** The entry point `pnpm start` runs. */
export const SERVER_SCRIPT = fileURLToPath(new URL('../src/server.ts', import.meta.url));

/** server.ts prints this once it accepts connections; PORT=0 lets the OS pick a free port. */
const LISTENING_LINE = /listening on (http:\/\/127\.0\.0\.1:\d+)/;

export interface ApiProcessOptions {
  /** The .ts file to run. @defaultValue SERVER_SCRIPT */
  script?: string;
  /** Extra environment variables for the process (PORT is always 0). */
  env?: NodeJS.ProcessEnv;
  /** How long to wait for the listening line; generous because tsx compiles on start. @defaultValue 30000 */
  startTimeoutMs?: number;
}

export interface ApiProcess {
  url: string;
  pid: number;
  /** SIGKILL: the process gets no chance to save or clean anything. */
  kill(): Promise<Exit>;
}

export async function startApiProcess(options: ApiProcessOptions = {}): Promise<ApiProcess> {
  const child: LabProcess = startTsProcess(options.script ?? SERVER_SCRIPT, {
    env: { ...options.env, PORT: '0' },
  });
  try {
    const [, url] = await child.waitForOutput(LISTENING_LINE, options.startTimeoutMs ?? 30_000);
    return { url: url!, pid: child.pid, kill: () => child.kill('SIGKILL') };
  } catch (err) {
    await child.kill('SIGKILL');
    throw err;
  }
}

/** Runs `use` against a fresh API process and always kills the process afterwards. */
export async function withApiProcess<T>(options: ApiProcessOptions, use: (api: ApiProcess) => Promise<T>): Promise<T> {
  const api = await startApiProcess(options);
  try {
    return await use(api);
  } finally {
    await api.kill();
  }
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
export function postJson(url: string, body: string, contentType = 'application/json'): Promise<HttpAnswer> {
  return request(url, { method: 'POST', headers: { 'content-type': contentType }, body });
}
