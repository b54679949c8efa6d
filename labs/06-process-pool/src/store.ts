// Lesson 06 keeps the job record and state machine of the lessons before it unchanged.
export * from '@tasks-lab/05-thread-pool-io/store';
