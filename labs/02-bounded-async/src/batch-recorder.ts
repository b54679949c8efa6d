// Listens to a batch's events and keeps the measurements the lesson asks about:
// peak reads in flight (the limiter), longest queue (the bounded queue), how reads
// ended, and which consumers closed. Pass `recorder.record` as the batch's onEvent.
import type { BatchEvent, ConsumerCloseReason } from './batch.ts';

export class BatchRecorder {
  readonly events: BatchEvent[] = [];
  #inFlight = 0;
  #peakInFlight = 0;
  #longestQueue = 0;

  readonly record = (event: BatchEvent): void => {
    this.events.push(event);
    if (event.type === 'read-started') {
      this.#inFlight += 1;
      this.#peakInFlight = Math.max(this.#peakInFlight, this.#inFlight);
    }
    if (event.type === 'read-finished' || event.type === 'read-aborted' || event.type === 'read-failed') {
      this.#inFlight -= 1;
    }
    if (event.type === 'queued') this.#longestQueue = Math.max(this.#longestQueue, event.queueLength);
  };

  /** Reads started and not yet ended. */
  get inFlight(): number {
    return this.#inFlight;
  }

  get peakInFlight(): number {
    return this.#peakInFlight;
  }

  get longestQueue(): number {
    return this.#longestQueue;
  }

  count(type: BatchEvent['type'], since = 0): number {
    return this.events.slice(since).filter((event) => event.type === type).length;
  }

  /** How many times the producer found the queue full and had to wait. */
  get producerWaits(): number {
    return this.events.filter((event) => event.type === 'queued' && event.waitedForSpace).length;
  }

  /** Closed consumers, in the order they closed. */
  get closedConsumers(): { consumer: number; reason: ConsumerCloseReason }[] {
    return this.events.flatMap((event) =>
      event.type === 'consumer-closed' ? [{ consumer: event.consumer, reason: event.reason }] : [],
    );
  }

  /** "4 started, 2 finished, 2 aborted, 0 failed" */
  describeReads(): string {
    const started = this.count('read-started');
    return `${started} started, ${this.count('read-finished')} finished, ${this.count('read-aborted')} aborted, ${this.count('read-failed')} failed`;
  }
}
