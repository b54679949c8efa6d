// The checker script as a student runs it: a real Node process per file.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTsProcess } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { sampleMessage } from '../src/sample-messages.ts';
import { makeTempDir } from './temp-dirs.ts';

const labDir = fileURLToPath(new URL('..', import.meta.url));

async function checkMessage(...args: string[]) {
  return checkMessageWith({}, ...args);
}

async function checkMessageWith(env: NodeJS.ProcessEnv, ...args: string[]) {
  const child = startTsProcess(join(labDir, 'scripts', 'check-message.ts'), {
    args,
    cwd: labDir,
    env: { INIT_CWD: labDir, MESSAGE_MAX_BYTES: '', ...env },
  });
  const { code } = await child.exited;
  return { code, output: child.output() };
}

// Real tsx processes start slowly on a busy 2-core machine.
describe('pnpm check:message', { timeout: 90_000 }, () => {
  it('When given samples/good.json, Then it accepts it with exit 0 and prints the size', async () => {
    const { code, output } = await checkMessage('samples/good.json');
    expect(code).toBe(0);
    expect(output).toMatch(/accepted: samples\/good.json — \d+ bytes, job [0-9a-f-]{36}, 3 product\(s\)/);
  });

  it('When given samples/with-credentials.json, Then it refuses it with exit 1 naming db_url and api_key but not their values', async () => {
    const { code, output } = await checkMessage('samples/with-credentials.json');
    expect(code).toBe(1);
    expect(output).toContain('db_url, api_key');
    expect(output).not.toContain('not-a-real-password');
  });

  it('When given samples/float-price.json, Then it refuses it with exit 1 naming price_cents', async () => {
    const { code, output } = await checkMessage('samples/float-price.json');
    expect(code).toBe(1);
    expect(output).toContain('price_cents');
  });

  it('When given a generated 130 KB message, Then it refuses it with exit 1 and states its size', async () => {
    const file = join(makeTempDir('big'), 'big.json');
    writeFileSync(file, JSON.stringify(sampleMessage(800, 80)));
    const { code, output } = await checkMessage(file);
    expect(code).toBe(1);
    expect(output).toMatch(/the message is \d{6} bytes; it must be smaller than 65536 bytes/);
  });

  it('When given no file or a missing file, Then it exits 2 (nothing checked) with a usage or read error', async () => {
    expect((await checkMessage()).code).toBe(2);
    expect((await checkMessage('samples/nope.json')).code).toBe(2);
  });

  it('When MESSAGE_MAX_BYTES lowers the limit below good.json, Then good.json is refused naming the lower limit', async () => {
    const { code, output } = await checkMessageWith({ MESSAGE_MAX_BYTES: '200' }, 'samples/good.json');
    expect(code).toBe(1);
    expect(output).toMatch(/it must be smaller than 200 bytes/);
  });

  it('When MESSAGE_MAX_BYTES would raise the limit above 64 KiB, Then nothing is checked and it exits 2 naming the bounds', async () => {
    const { code, output } = await checkMessageWith({ MESSAGE_MAX_BYTES: '1048576' }, 'samples/good.json');
    expect(code).toBe(2);
    expect(output).toContain('MESSAGE_MAX_BYTES must be a whole number from 64 to 65536, got "1048576"');
  });
});
