// `pnpm check:message <file.json>`: checks one message file against the contract and
// says why it is refused. Exit code 0 = accepted, 1 = refused, 2 = nothing was checked
// (no file, an unreadable file, or a bad MESSAGE_MAX_BYTES, which may lower the size
// limit but never raise it above the contract's 64 KiB).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { errorMessage, runMain } from '@tasks-lab/lab-kit';
import { createMessageCodec, MessageContractError } from '../src/message-contract.ts';
import { MESSAGE_CHECK_OPTIONS } from '../src/options.ts';

const EXIT_ACCEPTED = 0;
const EXIT_REFUSED = 1;
const EXIT_NOT_CHECKED = 2;

function main(): number {
  let maxMessageBytes: number;
  try {
    ({ maxMessageBytes } = MESSAGE_CHECK_OPTIONS.read());
  } catch (err) {
    console.error(errorMessage(err));
    return EXIT_NOT_CHECKED;
  }
  const file = process.argv[2];
  if (!file) {
    console.error('usage: pnpm check:message <file.json>   (try samples/good.json)');
    return EXIT_NOT_CHECKED;
  }
  // pnpm runs scripts in the lab folder; INIT_CWD is where the student typed the command.
  const path = resolve(process.env.INIT_CWD ?? process.cwd(), file);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    console.error(`cannot read ${file}: ${errorMessage(err)}`);
    return EXIT_NOT_CHECKED;
  }

  try {
    const message = createMessageCodec({ maxBytes: maxMessageBytes }).decode(bytes);
    console.log(
      `accepted: ${file} — ${bytes.byteLength} bytes, job ${message.job_id}, ${message.products.length} product(s)`,
    );
    return EXIT_ACCEPTED;
  } catch (err) {
    if (!(err instanceof MessageContractError)) throw err;
    console.log(`rejected: ${file} — ${err.message}`);
    return EXIT_REFUSED;
  }
}

runMain(import.meta.url, main);
