// Lesson 07's API, by name: the decision record and its evidence, the earlier labs'
// verify runs, and the export message contract that lesson 08 puts on the queue.
// Job store: none; this lesson chooses executors and defines a message, it keeps no jobs.
export {
  type Executor,
  type Delivery,
  type WorkKind,
  WORK_KINDS,
  type Evidence,
  type DecisionRow,
  type QueueRuntime,
  type DecisionRecord,
  DECISION_RECORD,
} from './decision-record.ts';
export {
  type RecordedCheck,
  type LabResultFile,
  LabResultUnreadableError,
  readLabResult,
  type EvidenceFinding,
  lookUpEvidence,
  type RecordAudit,
  auditDecisionRecord,
} from './evidence.ts';
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
  EARLIER_LABS_FILE,
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
