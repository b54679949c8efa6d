// startTsProcess's nodeArgs: Node's own flags, for those NODE_OPTIONS refuses (the benchmark's
// profiler, --cpu-prof), reach the child's Node and not its script's arguments.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTsProcess } from '../src/processes.ts';

describe('startTsProcess with Node flags', () => {
  it('When nodeArgs are given, Then Node runs with them and the script sees only its own arguments [test:process-node-args]', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lab-kit-node-args-'));
    try {
      const script = join(dir, 'print-argv.ts');
      await writeFile(
        script,
        'console.log(JSON.stringify({ execArgv: process.execArgv, args: process.argv.slice(2) }));\n',
      );
      const proc = startTsProcess(script, { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`], args: ['one'] });
      expect(await proc.exited).toEqual({ code: 0, signal: null });
      const seen = JSON.parse(proc.output().trim()) as { execArgv: string[]; args: string[] };
      expect(seen.execArgv.slice(0, 2)).toEqual(['--cpu-prof', `--cpu-prof-dir=${dir}`]);
      expect(seen.args).toEqual(['one']);
      // The profiler ran: a profile was written as the process exited.
      expect((await readdir(dir)).some((file) => file.endsWith('.cpuprofile'))).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
