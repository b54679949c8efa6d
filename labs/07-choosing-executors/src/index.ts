// Lesson 07's API, by name: the decision record, its grader and the recorded run it
// reads, the queue comparison, the earlier labs' verify runs, and the export message
// contract that lesson 08 puts on the queue.
// Job store: none; this lesson chooses executors and defines a message, it keeps no jobs.
export {
  type Executor,
  EXECUTORS,
  type Delivery,
  DELIVERIES,
  type WorkKind,
  WORK_KINDS,
  type KindRule,
  KIND_RULES,
  QUEUE_RUNTIME_FIELDS,
  type QueueRuntimeField,
  type QueueRuntime,
  type PlacementRow,
  type EvidenceRow,
  type DecisionRecord,
  PLACEMENT_COLUMNS,
  EVIDENCE_COLUMNS,
  parseDecisionRecord,
} from './decision-record.ts';
export {
  type RecordedRun,
  type RecordGrade,
  gradeProblems,
  type CitedValueFinding,
  lookUpCitedValue,
  gradeDecisionRecord,
  gradeDecisionRecordFile,
} from './evidence.ts';
export {
  type RecordedCheck,
  type LabResultFile,
  type EarlierLabsSeen,
  LabResultUnreadableError,
  readLabResult,
  EARLIER_LABS_FILE,
  readEarlierLabsRecord,
} from './recorded-run.ts';
export {
  type SourcedFact,
  type QueueFacts,
  COMPARED_FACTS,
  type ComparedFact,
  COURSE_QUEUE,
  QUEUE_COMPARISON,
  comparisonGaps,
} from './queue-comparison.ts';
export {
  EARLIER_LABS,
  type EarlierLabStatus,
  type EarlierLabRun,
  type EarlierLabsRecord,
  type VerifySummary,
  parseVerifySummary,
  parseFailedChecks,
  judgeRun,
  VERIFY_STOP_GRACE_MS,
  type RunLabOptions,
  recentRun,
  runLabVerify,
  type RunEarlierLabsOptions,
  runEarlierLabs,
  writeEarlierLabsRecord,
  formatRun,
} from './earlier-labs.ts';
export {
  MAX_MESSAGE_BYTES,
  productSnapshotSchema,
  type ProductSnapshot,
  exportMessageSchema,
  type ExportMessage,
  type MessageProblem,
  MessageContractError,
  type MessageCodec,
  type CodecOptions,
  createMessageCodec,
  encodeMessage,
  decodeMessage,
} from './message-contract.ts';
export {
  EARLIER_LABS_OPTIONS,
  type EarlierLabsSettings,
  MESSAGE_CHECK_OPTIONS,
  type MessageCheckSettings,
} from './options.ts';
export { sampleProduct, sampleMessage, productAt, encodedSize, messageOfSize } from './sample-messages.ts';
