// `pnpm broker:check`: ask the lab's Redis the lesson's three questions, once with the
// password from .env.tasks and once without. Prints replies, never the password.
import { ensureInfra } from '@tasks-lab/infra';
import { Redis, type RedisOptions } from 'ioredis';
import { brokerConnection, describeBroker, readBrokerSettings } from '../src/broker.ts';

const line = (question: string, answer: string) => console.log(`${question.padEnd(28)} -> ${answer}`);

/** A client that fails at once: no retries, no offline queue, no INFO before the first command. */
function quickClient(options: RedisOptions): Redis {
  const client = new Redis({ ...options, maxRetriesPerRequest: 0, retryStrategy: () => null, enableReadyCheck: false });
  client.on('error', () => {});
  return client;
}

await ensureInfra({ services: ['redis'], log: (line) => console.log(`[infra] ${line}`) });
const options = brokerConnection();
console.log(describeBroker(options));

const authenticated = quickClient(options);
try {
  const settings = await readBrokerSettings(authenticated);
  line('PING with the password', settings.ping);
  line('CONFIG GET appendonly', settings.appendonly);
  line('CONFIG GET maxmemory-policy', settings.maxmemoryPolicy);
} finally {
  authenticated.disconnect();
}

const { password: _password, ...withoutPassword } = options;
const anonymous = quickClient(withoutPassword);
try {
  line('PING without a password', `${await anonymous.ping()} (the broker is open: set requirepass)`);
  process.exitCode = 1;
} catch (err) {
  line('PING without a password', (err as Error).message);
} finally {
  anonymous.disconnect();
}
