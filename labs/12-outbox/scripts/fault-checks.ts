// Lesson 12's fault checks (the course's two drills, graded by verify; drill-*.ts files are
// the drills a student runs by hand): the broker is down at submit, and a send whose confirmation is
// lost. The scenarios (scripts/fault-scenarios.ts) run the real thing (a private Redis
// stopped and started, a publisher process that dies after its send, lesson 11's worker
// counting its deliveries); each judge below reads only their evidence.
// buildFaultChecks(deps) swaps a broken part in for the can-fail tests; building starts nothing.
import { defineCheck, outcome, sharedScenario, type Check, formatDuration } from '@tasks-lab/lab-kit';
import type { OutboxOptionValues } from '../src/options.ts';
import { brokerDown, lostConfirmation, type FaultParts, type FaultSetup } from './fault-scenarios.ts';

export interface FaultCheckDeps {
  /** Broken parts (the can-fail tests). */
  faultParts?: Partial<FaultParts>;
  /** A migrated database of the caller's own (the tests'); verify gives each drill a scratch database of its own. */
  database?: string;
  /** @defaultValue the short timings (USE_COURSE_TIMINGS=1 forces the course's) */
  timings?: OutboxOptionValues;
}

const show = (value: unknown) => JSON.stringify(value);

export function buildFaultChecks(deps: FaultCheckDeps = {}): Check[] {
  const setup: FaultSetup = { parts: deps.faultParts, database: deps.database, timings: deps.timings };
  // One experiment per drill, several checks each.
  const brokerDownRun = sharedScenario(brokerDown(setup));
  const absorbedRun = sharedScenario(lostConfirmation(setup, 'absorbed'));

  return [
    defineCheck({
      id: 'broker-down-job-and-event-kept',
      name: 'With the broker down, POST /exports still answers 202 and the job and its unsent outbox event are both in the database',
      timeoutMs: 120_000,
      scenario: brokerDownRun,
      judge: (e) =>
        outcome(
          e.postStatus === 202 &&
            e.whileDown.jobState === 'queued' &&
            e.whileDown.events === 1 &&
            e.whileDown.unsentEvents === 1,
          `Redis stopped; POST ${e.postStatus}; while down: job ${show(e.whileDown.jobState)}, ${e.whileDown.events} event(s), ` +
            `${e.whileDown.unsentEvents} unsent (send attempts ${e.whileDown.sendAttempts}, last_error ${show(e.whileDown.lastError?.slice(0, 60) ?? null)}) (${e.timings})`,
        ),
    }),
    defineCheck({
      id: 'broker-down-send-error-reported',
      name: 'With the broker down, the publisher reports the failed send within its bound (one poll + the send bound) instead of waiting for ever',
      timeoutMs: 120_000,
      scenario: brokerDownRun,
      judge: (e) =>
        outcome(
          e.firstErrorAfterMs !== null && e.firstErrorAfterMs <= e.boundMs && e.whileDown.unsentEvents === 1,
          e.firstErrorAfterMs === null
            ? `no report about job ${e.jobId}'s send within ${formatDuration(2 * e.boundMs)}; the event is ${e.whileDown.unsentEvents === 1 ? 'unsent' : 'MARKED SENT'} (${e.timings})`
            : `first report ${formatDuration(e.firstErrorAfterMs)} after the submit (bound ${formatDuration(e.boundMs)}): ${show(e.firstError)}; ` +
                `${e.errorsReported} report(s) in all; the event is ${e.whileDown.unsentEvents === 1 ? 'still unsent' : 'MARKED SENT'} (${e.timings})`,
        ),
    }),
    defineCheck({
      id: 'broker-back-event-sent',
      name: 'The publisher stays up through the outage and never marks the event sent while the broker is down: once Redis is back it sends it and the job succeeds',
      timeoutMs: 120_000,
      scenario: brokerDownRun,
      judge: (e) =>
        outcome(
          e.whileDown.events === 1 &&
            e.whileDown.unsentEvents === 1 &&
            e.afterRestart.eventSent &&
            e.afterRestart.jobState === 'succeeded' &&
            e.afterRestart.resultRef !== null,
          `while Redis was down the event was ${e.whileDown.events === 1 && e.whileDown.unsentEvents === 1 ? 'kept unsent' : 'NOT kept unsent'}; ` +
            `after Redis came back: event ${e.afterRestart.eventSent ? 'sent' : 'NOT sent'}, job ${show(e.afterRestart.jobState)} (attempts ${show(e.afterRestart.attempts)}), ` +
            `result_ref ${show(e.afterRestart.resultRef)}, ${e.afterRestart.deliveries} delivery(ies)${e.afterRestart.deliveryOutcomes.length > 0 ? ` (${e.afterRestart.deliveryOutcomes.join('; ')})` : ''}` +
            `${e.afterRestart.failedDeliveries.length > 0 ? `, ${e.afterRestart.failedDeliveries.length} failed: ${e.afterRestart.failedDeliveries.join(' | ')}` : ''} (${e.timings})`,
        ),
    }),
    defineCheck({
      id: 'lost-confirmation-event-resent',
      name: 'A publisher that dies between the send and the confirmation leaves the event unsent; a replacement sends it again once the claim has passed',
      timeoutMs: 120_000,
      scenario: absorbedRun,
      judge: (e) =>
        outcome(
          e.crashed.exitSignal === 'SIGKILL' &&
            e.crashed.eventSentAt === null &&
            e.crashed.sendAttempts === 1 &&
            e.after.eventSent &&
            e.after.sendAttempts === 2 &&
            e.after.resentAfterClaimPassed,
          `first publisher ${e.crashed.exitSignal === 'SIGKILL' ? 'died (SIGKILL) after its send' : `ended with ${show(e.crashed.exitSignal)}`}, ` +
            `event ${e.crashed.eventSentAt === null ? 'unsent' : 'ALREADY MARKED SENT'} after ${e.crashed.sendAttempts} send attempt(s); ` +
            `replacement: event ${e.after.eventSent ? 'sent' : 'NOT sent'}, ${e.after.sendAttempts} send attempts, ` +
            `${e.after.resentAfterClaimPassed ? 'after the first claim passed' : 'NOT after the first claim passed'} (${e.timings})`,
        ),
    }),
    defineCheck({
      id: 'resend-absorbed-by-broker',
      name: "BullMQ absorbs the resend: the event id is the BullMQ job id and the first send's job still exists, so the worker sees ONE delivery",
      timeoutMs: 120_000,
      scenario: absorbedRun,
      judge: (e) =>
        outcome(
          e.after.sendAttempts === 2 &&
            e.deliveries.length === 1 &&
            e.deliveries[0]?.bullJobId === e.eventId &&
            e.jobAfter.state === 'succeeded' &&
            e.jobAfter.attempts === 1,
          `event sent ${e.after.sendAttempts} times; the worker saw ${e.deliveries.length} delivery(ies) ` +
            `${show(e.deliveries.map((d) => ({ id: d.bullJobId === e.eventId ? 'event id' : d.bullJobId, claimed: d.claimed })))}; ` +
            `job ${show(e.jobAfter.state)} after ${show(e.jobAfter.attempts)} claim(s) (${e.timings})`,
        ),
    }),
    defineCheck({
      id: 'duplicate-delivery-one-result',
      name: "When the first send's BullMQ job is gone before the resend, the worker gets a real second delivery and lesson 11's claim keeps one result",
      timeoutMs: 120_000,
      scenario: lostConfirmation(setup, 'redelivered'),
      judge: (e) => {
        const second = e.deliveries[1];
        return outcome(
          e.firstSendRemoved &&
            e.deliveries.length === 2 &&
            e.deliveries.every((d) => d.bullJobId === e.eventId) &&
            second?.claimed === false &&
            e.jobBefore.state === 'succeeded' &&
            e.jobAfter.state === 'succeeded' &&
            e.jobAfter.attempts === 1 &&
            e.jobAfter.resultRef === e.jobBefore.resultRef &&
            e.artifacts === 1,
          `first send's BullMQ job ${e.firstSendRemoved ? 'removed' : 'NOT removed'}; the worker saw ${e.deliveries.length} delivery(ies) ` +
            `${show(e.deliveries.map((d) => ({ claimed: d.claimed, published: d.published })))}; job ${show(e.jobAfter.state)}, ` +
            `attempts ${show(e.jobBefore.attempts)} -> ${show(e.jobAfter.attempts)}, result_ref ${e.jobAfter.resultRef === e.jobBefore.resultRef ? 'unchanged' : 'CHANGED'}, ` +
            `${e.artifacts} artifact(s) (${e.timings})`,
        );
      },
    }),
  ];
}
