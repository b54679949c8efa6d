// Every process of labs 09 and 10 that talks to the lab's services (the workers, the
// producers, the drills, verify) calls this first, as lesson 08's worker does: it starts
// Redis (and the database, when asked) if they are not running, and says on screen what
// it found or did. Without it, a worker started while the services are down retries
// ECONNREFUSED for ever instead of starting them or naming what is in the way.
import { ensureInfra, serviceSettings, type Service } from '@tasks-lab/infra';

export type Print = (line: string) => void;

/** `[infra] Redis on 127.0.0.1:6384 already running`, or the lines of what was started. */
export async function ensureServices(services: Service[], print: Print = console.log): Promise<void> {
  const { started } = await ensureInfra({ services, log: (line) => print(`[infra] ${line}`) });
  const { host, redisPort, mysqlPort } = serviceSettings();
  const where = (service: Service) =>
    service === 'redis' ? `Redis on ${host}:${redisPort}` : `the database on ${host}:${mysqlPort}`;
  const running = services.filter((service) => !started.includes(service));
  if (running.length > 0) print(`[infra] ${running.map(where).join(' and ')} already running`);
}
