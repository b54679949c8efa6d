import { describe, expect, it } from 'vitest';
import { waitFor } from '@tasks-lab/lab-kit';
import { readJob, startLabServer, submitBackgroundExport } from '../scripts/lab-server.ts';

describe('src/server.ts as a real process', () => {
  it('When SIGTERM arrives during a 30 s export, Then the server waits the grace period, cancels it, reports 0 remaining and exits 0', async () => {
    const server = await startLabServer(undefined, { EXPORT_WORK_MS: '30000', SHUTDOWN_GRACE_MS: '300' });
    try {
      const { body } = await submitBackgroundExport(server.url, [1, 2]);
      await waitFor('running', async () => (await readJob(server.url, body.id)).body.status === 'running');
      server.process.child.kill('SIGTERM');
      const exit = await server.process.exited;
      expect(exit.code).toBe(0);
      expect(server.process.output()).toContain(`job ${body.id} cancelled`);
      expect(server.process.output()).toContain('shutdown: 0 finished within grace, 1 cancelled, 0 remaining');
    } finally {
      await server.process.kill();
    }
  });

  it('When SIGINT (Ctrl-C) arrives with nothing running, Then the server reports nothing to drain and exits 0', async () => {
    const server = await startLabServer(undefined, { SHUTDOWN_GRACE_MS: '10000' });
    try {
      server.process.child.kill('SIGINT');
      const exit = await server.process.exited;
      expect(exit.code).toBe(0);
      expect(server.process.output()).toContain('shutdown: 0 finished within grace, 0 cancelled, 0 remaining');
    } finally {
      await server.process.kill();
    }
  });
});
