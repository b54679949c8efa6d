// A side effect that is NOT idempotent, for the late-ack drill (EXPORT_LEDGER=on): every
// delivery appends one line to `<dir>/<job_id>.ledger`. Think of an e-mail sent or a
// balance credited: run twice, it happens twice. The artifact next to it, run twice,
// leaves one identical file. The drill kills a worker after both and before BullMQ
// hears "completed", and counts what each one left behind.
import { appendFile, readFile } from 'node:fs/promises';
import type { ExportMessage } from '@tasks-lab/07-choosing-executors';
import { finalArtifactPath } from './artifact.ts';

export interface LedgerEntry {
  /** The process that did the side effect. */
  pid: number;
  bullJobId: string;
  /** When it was done (epoch ms): the start of the late-ack window. */
  at: number;
}

/** Next to the artifact, named after the same (checked) business job id. */
export const ledgerPath = (dir: string, jobId: string): string =>
  finalArtifactPath(dir, jobId).replace(/\.json$/, '.ledger');

/** Appends one line: no temp file, no rename, no check whether this delivery was here before. */
export async function appendLedgerLine(dir: string, message: ExportMessage, entry: LedgerEntry): Promise<void> {
  await appendFile(ledgerPath(dir, message.job_id), JSON.stringify(entry) + '\n', 'utf8');
}

/** Every line so far; none when the file does not exist. */
export async function readLedger(dir: string, jobId: string): Promise<LedgerEntry[]> {
  try {
    const text = await readFile(ledgerPath(dir, jobId), 'utf8');
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as LedgerEntry);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}
