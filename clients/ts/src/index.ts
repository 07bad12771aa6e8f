// ursa-client: a typed client for ursa and Ursula durable streams, with the recipes of Ursula
// v0.9.0, Conditional Writes as one call each. Built on fetch; runs in Node >= 20, Bun, Deno and
// browsers. Which guard to use (Conditional Writes, last section):
//   - several writers extend one log, each commit validated against everything before it:
//     PrefixCountWriter (prefix-count Stream-Seq);
//   - one logical publisher, possibly failing over between owners, must not publish a fact twice
//     or out of order: OutboxPublisher (commit-number Stream-Seq plus producer headers);
//   - retries of the same append must not be written twice: UrsaStream.append with `producer`;
//   - any client that keeps offsets, producer state or a cache across requests: Stream-Incarnation,
//     which every UrsaStream keeps and sends;
//   - independent appends (event logging): none of these, UrsaStream.append.

export { HEADER, padSeq, parseSeq, SEQ_WIDTH, STREAM_START } from "./headers.js";
export {
  errorFromParts,
  errorFromResponse,
  IncarnationMismatch,
  OutcomeUnknown,
  ProducerFenced,
  ProducerSeqConflict,
  StreamClosed,
  StreamGone,
  StreamNotFound,
  StreamSeqConflict,
  UrsaError,
} from "./errors.js";
export { parseMultipart, type Part } from "./multipart.js";
export {
  UrsaStream,
  type AppendOptions,
  type Appended,
  type Body,
  type Bootstrap,
  type ClientOptions,
  type CreateOptions,
  type FetchLike,
  type Created,
  type LiveMode,
  type Producer,
  type ReadChunk,
  type ReadOptions,
  type StreamInfo,
  type TailRead,
  type UrsaStreamOptions,
} from "./stream.js";
export { PrefixCountWriter, RetriesExhausted, type Attempt, type Committed, type Decide, type LogView, type PrefixCountWriterOptions } from "./prefix-count-writer.js";
export { OutboxPublisher, type OutboxPublisherOptions, type Published } from "./outbox-publisher.js";
export {
  commitResuming,
  compact,
  countedSnapshotOf,
  readFromSnapshot,
  resumeFromSnapshot,
  type Compaction,
  type CountedSnapshot,
  type Resumed,
} from "./compaction.js";
