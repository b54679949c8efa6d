// Lesson 09 keeps the job record and state machine of the lessons before it unchanged.
export * from '@tasks-lab/08-broker-worker/store';
