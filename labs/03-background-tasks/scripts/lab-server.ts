// Helpers the checks, the drill and the tests share: run src/server.ts (or a fixture
// server) as a real process owned by a resource scope, and talk to it over HTTP.
import { fileURLToPath } from 'node:url';
import { launchProcess, type LabProcess, type Resources } from '@tasks-lab/lab-kit';
import type { JobResponse } from '@tasks-lab/01-state-machine';

export const SERVER_SCRIPT = fileURLToPath(new URL('../src/server.ts', import.meta.url));

/** Which server to run: src/server.ts by default; a can-fail test passes a broken fixture. */
export interface ServerProcess {
  script?: string;
  env?: NodeJS.ProcessEnv;
}

export interface LabServer {
  process: LabProcess;
  url: string;
}

const LISTENING = /listening on (http:\/\/[\d.:]+)/;

/**
 * Starts the server on a free port (PORT=0) and waits for its "listening on" line.
 * The scope owns the process: it is killed when the scope closes or its signal aborts.
 */
export async function launchLabServer(
  res: Resources,
  server: ServerProcess = {},
  env: NodeJS.ProcessEnv = {},
): Promise<LabServer> {
  const proc = await launchProcess(server.script ?? SERVER_SCRIPT, {
    ready: LISTENING,
    env: { PORT: '0', ...server.env, ...env },
    resources: res,
  });
  const [, url] = await proc.waitForOutput(LISTENING);
  return { process: proc, url: url! };
}

export interface SubmitAnswer {
  status: number;
  location: string | null;
  body: JobResponse;
}

export async function submitBackgroundExport(
  url: string,
  productIds: number[],
  signal?: AbortSignal,
): Promise<SubmitAnswer> {
  const response = await fetch(`${url}/exports/background`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ product_ids: productIds }),
    signal,
  });
  return {
    status: response.status,
    location: response.headers.get('location'),
    body: (await response.json()) as JobResponse,
  };
}

export interface JobAnswer {
  status: number;
  /** The job on 200; an error body ({ error, message }) otherwise, so every job field may be missing. */
  body: Partial<JobResponse>;
}

export async function readJob(url: string, jobId: string, signal?: AbortSignal): Promise<JobAnswer> {
  const response = await fetch(`${url}/exports/${jobId}`, { signal });
  return { status: response.status, body: (await response.json()) as Partial<JobResponse> };
}
