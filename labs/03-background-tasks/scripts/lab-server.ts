// Helpers the checks and the drill share: run src/server.ts as a real process and talk to it.
import { fileURLToPath } from 'node:url';
import { startTsProcess, type LabProcess } from '@tasks-lab/lab-kit';
import type { JobResponse } from '../src/index.ts';

export const SERVER_SCRIPT = fileURLToPath(new URL('../src/server.ts', import.meta.url));

export interface LabServer {
  process: LabProcess;
  url: string;
}

/** Starts the server on a free port (PORT=0) and waits for its "listening on" line. */
export async function startLabServer(script = SERVER_SCRIPT, env: NodeJS.ProcessEnv = {}): Promise<LabServer> {
  const process = startTsProcess(script, { env: { PORT: '0', ...env } });
  try {
    const [, url] = await process.waitForOutput(/listening on (http:\/\/[\d.:]+)/, 30_000);
    return { process, url: url! };
  } catch (err) {
    await process.kill();
    throw err;
  }
}

export interface SubmitAnswer {
  status: number;
  location: string | null;
  body: JobResponse;
}

export async function submitBackgroundExport(url: string, productIds: number[]): Promise<SubmitAnswer> {
  const response = await fetch(`${url}/exports/background`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ product_ids: productIds }),
  });
  return { status: response.status, location: response.headers.get('location'), body: (await response.json()) as JobResponse };
}

export interface JobAnswer {
  status: number;
  /** The job on 200; an error body ({ error, message }) otherwise, so every job field may be missing. */
  body: Partial<JobResponse>;
}

export async function readJob(url: string, jobId: string): Promise<JobAnswer> {
  const response = await fetch(`${url}/exports/${jobId}`);
  return { status: response.status, body: (await response.json()) as Partial<JobResponse> };
}
