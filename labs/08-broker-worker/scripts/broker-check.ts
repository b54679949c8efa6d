// `pnpm broker:check`: ask the lab's Redis the lesson's three questions, once with the
// password from .env.tasks and once without. Prints replies, never the password.
import { ensureInfra } from '@tasks-lab/infra';
import { runMain } from '@tasks-lab/lab-kit';
import { askBroker, type Answer } from './scenarios.ts';
import { labParts } from './checks.ts';

const line = (question: string, answer: Answer) =>
  console.log(`${question.padEnd(28)} -> ${'reply' in answer ? answer.reply : answer.refused}`);

runMain(import.meta.url, async () => {
  await ensureInfra({ services: ['redis'], log: (text) => console.log(`[infra] ${text}`) });
  // The scenario closes its clients itself; there is nothing left to close on Ctrl-C.
  const broker = await askBroker(labParts(), new AbortController().signal);
  console.log(broker.where);
  line('PING with the password', broker.pingWithPassword);
  line('CONFIG GET appendonly', broker.appendonly);
  line('CONFIG GET maxmemory-policy', broker.maxmemoryPolicy);
  line('PING without a password', broker.pingWithoutPassword);
  if ('reply' in broker.pingWithoutPassword) {
    console.log('The broker answers anyone: set requirepass (pnpm infra:up writes it).');
    return 1;
  }
  return 0;
});
