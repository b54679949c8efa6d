// vitest globalSetup for labs that need the services: brings Redis and the
// database up once before the lab's tests (idempotent; a no-op when they run).
import { ensureInfra } from './services.ts';

export default async function setup(): Promise<void> {
  await ensureInfra({ log: (line) => console.log(`[infra] ${line}`) });
}
