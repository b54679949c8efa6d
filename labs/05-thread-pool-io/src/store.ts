// Lesson 05 keeps the job record and state machine of the lessons before it unchanged.
export * from '@tasks-lab/04-worker-threads/store';
