// `pnpm sample:too-large [out.json]`: writes a message that is valid in every way except
// its size (about 130 KB), so `pnpm check:message` can show the size limit at work.
// It goes to the temp folder by default: a generated file has no place in the repo.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runMain } from '@tasks-lab/lab-kit';
import { encodedSize, sampleMessage } from '../src/sample-messages.ts';

runMain(import.meta.url, () => {
  const out = process.argv[2] ?? join(tmpdir(), 'too-large-message.json');
  const message = sampleMessage(800, 80);
  writeFileSync(out, JSON.stringify(message));
  console.log(`wrote ${out}: ${message.products.length} products, ${encodedSize(message)} bytes`);
});
