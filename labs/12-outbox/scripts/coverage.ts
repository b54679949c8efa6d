// Lesson 12's checklist from the course, in our words, and what grades each item here
// (`pnpm lab coverage 12`; the table in docs/12-outbox.md is written from this).
import { coverage } from '@tasks-lab/lab-kit';

export const COVERAGE = coverage([
  // Learning checks
  {
    section: 'learning-check',
    item: 'Once the submission has committed, the job and its outbox event both exist',
    gradedBy: [
      'check:submit-writes-job-and-event',
      'check:broker-down-job-and-event-kept',
      'test:post-answers-after-commit',
    ],
  },
  {
    section: 'learning-check',
    item: 'With the broker down the event stays unsent (sent_at NULL) and is sent later, once the broker is back',
    gradedBy: ['check:broker-down-job-and-event-kept', 'check:broker-back-event-sent'],
  },
  {
    section: 'learning-check',
    item: "Publishing an event twice cannot let a worker get past lesson 11's lease conditions and replace the final result",
    gradedBy: ['check:duplicate-delivery-one-result', 'check:resend-absorbed-by-broker'],
  },
  // Implementation decisions
  {
    section: 'implementation-decision',
    item: 'The intent to send is committed in the same transaction as the business record: both exist or neither does',
    gradedBy: ['check:fault-after-job-insert-leaves-neither', 'check:submit-writes-job-and-event'],
  },
  {
    section: 'implementation-decision',
    item:
      "The publisher's send has a time bound, a failed send is reported and retried later, and events that stay unsent show in the table (last_error, send attempts); " +
      "the alert on an event unsent too long is lesson 16's (check outbox-alert-raised, prometheus/alerts.yml)",
    gradedBy: ['check:broker-down-send-error-reported', 'check:broker-back-event-sent'],
  },
  {
    section: 'implementation-decision',
    item: 'A duplicate message is a normal path, not an exception: the worker keeps the durable claim and the token-checked finish',
    gradedBy: ['check:duplicate-delivery-one-result', 'check:lost-confirmation-event-resent'],
  },
  // The drill
  {
    section: 'drill',
    item: 'Break each window in turn (a rollback inside the submission, the broker unavailable, a send whose sent_at is never written) and check how each recovers',
    gradedBy: [
      'check:fault-after-job-insert-leaves-neither',
      'check:broker-down-job-and-event-kept',
      'check:broker-down-send-error-reported',
      'check:broker-back-event-sent',
      'check:lost-confirmation-event-resent',
      'check:resend-absorbed-by-broker',
      'check:duplicate-delivery-one-result',
    ],
  },
  // Acceptance
  {
    section: 'acceptance',
    item: 'No accepted job exists without its intent to send',
    gradedBy: [
      'check:fault-after-job-insert-leaves-neither',
      'check:broker-down-job-and-event-kept',
      'test:nudge-failure-keeps-job',
    ],
  },
  {
    section: 'acceptance',
    item: 'No database transaction stays open while the publisher waits for the broker',
    gradedBy: ['test:no-lock-during-send'],
  },
  {
    section: 'acceptance',
    item: 'A repeated publication recovers, and the final result is single and can be found from the job row',
    gradedBy: [
      'check:lost-confirmation-event-resent',
      'check:duplicate-delivery-one-result',
      'check:publisher-sends-and-confirms',
    ],
  },
  // Troubleshooting
  {
    section: 'troubleshooting',
    item: 'An event is marked sent but the broker never got it: it was marked before the send, or the send error was ignored; mark it only after the broker accepted it, and give a failed one back',
    gradedBy: ['check:broker-back-event-sent', 'check:lost-confirmation-event-resent'],
  },
  {
    section: 'troubleshooting',
    item: 'Slow sends keep database locks held: the broker call was made inside the claiming transaction; claim, send and confirm are three steps, the token stops an old publisher confirming',
    // The lab's own exercise (exercise/confirm-event.ts) is that confirmation by token: its tests grade the token half.
    gradedBy: ['test:no-lock-during-send', 'test:exercise-other-token-refused', 'test:exercise-passed-claim-refused'],
  },
  // The exercise
  {
    section: 'exercise',
    item: "The course's exercise: throw after the job's INSERT and before the outbox INSERT, in one transaction, and find no row of that submission in either table",
    gradedBy: ['check:fault-after-job-insert-leaves-neither'],
  },
]);
