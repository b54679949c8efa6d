// The load generator of `pnpm bench:pipeline`, in its own process so that its CPU is its own
// and can be reported: everything (the load, the API, the publisher, the workers, MySQL and
// Redis) shares the same two cores, and a load generator that eats one of them is part of
// what the figures mean.
//
//   node --import tsx scripts/bench-load.ts <api url> <clients> <seconds> <product ids, comma-separated> [<bulk every n>]
//
// A closed loop: each client POSTs /exports, waits for the answer, and posts again at once,
// until the time is up. With <bulk every n>, every n-th request (over all clients) asks for
// products 1 to 40 instead: a bulk export, routed to exports.bulk. Prints a ready line, then one JSON line with what it sent and saw and
// its CPU time, then exits.
import { runMain } from '@tasks-lab/lab-kit';

export interface LoadReport {
  clients: number;
  seconds: number;
  accepted: number;
  refused: number;
  failed: number;
  /** The process's CPU time (user + system) over its wall time while loading: 1.0 = one full core. */
  cpuCores: number;
}

/** Products 1 to 40: more than the fast route's 30 rows. */
export const BULK_BODY = JSON.stringify({ product_ids: Array.from({ length: 40 }, (_, i) => i + 1) });

async function client(
  url: string,
  bodyOf: () => string,
  until: number,
  counts: { accepted: number; refused: number; failed: number },
): Promise<void> {
  while (Date.now() < until) {
    const body = bodyOf();
    try {
      const response = await fetch(`${url}/exports`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      await response.arrayBuffer(); // read the answer through, so the connection is reused
      if (response.status === 202) counts.accepted += 1;
      else if (response.status === 503) counts.refused += 1;
      else counts.failed += 1;
    } catch {
      counts.failed += 1;
    }
  }
}

async function main(): Promise<void> {
  const [url, clientsArg, secondsArg, productsArg, bulkEveryArg = '0'] = process.argv.slice(2);
  const clients = Number(clientsArg);
  const seconds = Number(secondsArg);
  const productIds = String(productsArg).split(',').map(Number);
  const bulkEvery = Number(bulkEveryArg);
  if (
    !url ||
    !Number.isInteger(clients) ||
    clients < 1 ||
    !(seconds > 0) ||
    productIds.some((id) => !Number.isInteger(id)) ||
    !Number.isInteger(bulkEvery) ||
    bulkEvery < 0
  ) {
    throw new Error(
      'usage: bench-load.ts <api url> <clients> <seconds> <product ids, comma-separated> [<bulk every n>]',
    );
  }
  console.log(`load generator ${process.pid} ready`);
  const body = JSON.stringify({ product_ids: productIds });
  let sent = 0;
  const bodyOf = () => (bulkEvery > 0 && ++sent % bulkEvery === 0 ? BULK_BODY : body);
  const counts = { accepted: 0, refused: 0, failed: 0 };
  const startCpu = process.cpuUsage();
  const started = Date.now();
  const until = started + seconds * 1000;
  await Promise.all(Array.from({ length: clients }, () => client(url, bodyOf, until, counts)));
  const cpu = process.cpuUsage(startCpu);
  const report: LoadReport = {
    clients,
    seconds,
    ...counts,
    cpuCores: (cpu.user + cpu.system) / 1000 / (Date.now() - started),
  };
  console.log(`LOAD ${JSON.stringify(report)}`);
}

runMain(import.meta.url, main);
