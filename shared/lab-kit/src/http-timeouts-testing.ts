// For test files only (it imports vitest): what every lab's test/server.timeouts.test.ts expects
// of a stalled request (stalled-request.ts). Exported through `@tasks-lab/lab-kit/testing`.
import { expect } from 'vitest';
import type { StalledExchange } from './stalled-request.ts';

/** How late an answer may be on a loaded machine (CI runs ten labs at once on two cores). */
export const TIMEOUT_SLACK_MS = 5000;

/**
 * The server answered one JSON 408 in the labs' error shape (`{ error, message }`, lesson 01's
 * ErrorResponse) with `Connection: close`, then closed the connection, no sooner than `boundMs`
 * after the request was sent (it cannot beat its own timeout; load only makes it later) and
 * well before Node's minutes: within `boundMs` + TIMEOUT_SLACK_MS. `before` lists the answers
 * expected ahead of the 408 on the same connection (a route that refuses without reading the body).
 */
export function expectJsonTimeout(exchange: StalledExchange, boundMs: number, before: number[] = []): void {
  expect(
    exchange.answers.map((answer) => answer.status),
    `received: ${exchange.received.slice(0, 400)}`,
  ).toEqual([...before, 408]);
  const answer = exchange.answers.at(-1);
  expect(answer?.headers['content-type']).toMatch(/^application\/json/);
  expect(answer?.headers.connection).toBe('close');
  expect(answer?.json).toEqual({ error: 'request-timeout', message: expect.stringMatching(/\S/) });
  expect(exchange.closedAfterMs, 'the server closed the connection').toBeDefined();
  expect(exchange.closedAfterMs).toBeGreaterThanOrEqual(boundMs - 50);
  expect(exchange.closedAfterMs).toBeLessThan(boundMs + TIMEOUT_SLACK_MS);
}
