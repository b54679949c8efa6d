// `pnpm check:message <file.json>`: checks one message file against the contract and
// says why it is refused. Exit code 0 = accepted, 1 = refused, 2 = no readable file.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { decodeMessage, MessageContractError } from '../src/message-contract.ts';

const file = process.argv[2];
if (!file) {
  console.error('usage: pnpm check:message <file.json>   (try samples/good.json)');
  process.exit(2);
}

// pnpm runs scripts in the lab folder; INIT_CWD is where the student typed the command.
const path = resolve(process.env.INIT_CWD ?? process.cwd(), file);
let bytes: Buffer;
try {
  bytes = readFileSync(path);
} catch (err) {
  console.error(`cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(2);
}

try {
  const message = decodeMessage(bytes);
  console.log(`accepted: ${file} — ${bytes.byteLength} bytes, job ${message.job_id}, ${message.products.length} product(s)`);
} catch (err) {
  if (!(err instanceof MessageContractError)) throw err;
  console.log(`rejected: ${file} — ${err.message}`);
  process.exitCode = 1;
}
