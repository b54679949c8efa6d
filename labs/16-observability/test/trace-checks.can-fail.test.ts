// Every trace check of lesson 16 must be able to fail: each case swaps in one broken part
// (test/fixtures/broken-trace.ts: a worker process of a fixture, or a publisher part), runs the
// check's real scenario (a fresh database, a BullMQ prefix of its own, a real worker process,
// the API and publisher in this process) and expects the check to fail, saying what it saw.
import { describe } from 'vitest';
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { buildTraceChecks, type TraceCheckDeps } from '../scripts/trace-checks.ts';
import type { TraceParts } from '../scripts/trace-scenarios.ts';
import {
  publisherLosingTrace,
  workerCountingBullmqAttempts,
  workerLoggingBrokerUrl,
  workerLoggingProducts,
  workerWithoutLeaseToken,
} from './fixtures/broken-trace.ts';

const broken = (parts: Partial<TraceParts>) => (): TraceCheckDeps => ({ traceParts: parts });

describe('trace checks can fail', () => {
  const suite = canFailSuite(buildTraceChecks);

  suite.breaks(
    'phase-logs-follow-one-job',
    "the worker's phase lines carry no lease token",
    broken({ fastWorker: workerWithoutLeaseToken }),
    {
      observed: /lease_token claimed none, published none, row [0-9a-f]{8}… \(EXPECTED all three the same\)/,
    },
  );
  suite.breaks(
    'logs-hold-no-description-or-credential',
    'the worker logs the claimed products through pino',
    broken({ fastWorker: workerLoggingProducts }),
    {
      observed: /holding the description's marker: [1-9]\d* \(EXPECTED 0\)/,
    },
  );
  suite.breaks(
    'logs-hold-no-description-or-credential',
    "the worker prints the broker's URL with its password",
    broken({ fastWorker: workerLoggingBrokerUrl }),
    {
      observed: /holding a password: [1-9]\d* \(\d+ passwords looked for\) \(EXPECTED 0\)/,
    },
  );
  suite.breaks(
    'trace-survives-recovery',
    "the publisher sends lesson 12's message without the traceparent",
    broken({ publisherParts: publisherLosingTrace }),
    {
      observed: /EXPECTED [0-9a-f]{8}… on every line/,
    },
  );
  suite.breaks(
    'trace-survives-recovery',
    "the worker logs BullMQ's attempts instead of the row's",
    broken({ fastWorker: workerCountingBullmqAttempts }),
    {
      observed: /claimed attempt 1, .*EXPECTED attempt 2/,
    },
  );
  suite.coversEveryCheck();
});
