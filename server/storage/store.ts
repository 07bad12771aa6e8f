// The one storage interface (design.md): the transaction boundary. A write reads the stream's
// state, lets server/protocol decide, and applies the effect atomically; data, Stream-Seq,
// producer state, closure and TTL move together or not at all.

import type { SubscriptionStore } from "./subscriptions";
import type { AppendDecision, AppendEffect, AppendRequest } from "../protocol/append";
import type { CreateRequest } from "../protocol/create";
import type { ProtocolError } from "../protocol/errors";
import type { ProducerLimits, ProducerState } from "../protocol/producer";
import type { ResourceTarget } from "../protocol/retention";
import type { PublishRequest } from "../protocol/snapshot";
import { streamKey, type SnapshotMeta, type StreamState } from "../protocol/state";
import type { AttrsOutcome, BatchOutcome, BatchRequest, CreateOutcome, DeleteOutcome, PublishOutcome, RetentionOutcome, WritePlan } from "../protocol/writes";
import type { Introspection } from "./introspection";
import type { DiskFailure, WriteState } from "./write-health";

export type { AttrsOutcome, BatchOutcome, BatchRequest, CreateOutcome, DeleteOutcome, PublishOutcome, RetentionOutcome } from "../protocol/writes";

/** A snapshot body streaming into storage, written in chunks as it arrives (never held whole). */
export interface SnapshotUpload {
  /** Rejects if the disk is full; nothing refers to what was written until the publish commits. */
  write(bytes: Uint8Array): Promise<void>;
  /** After the last write, before publishSnapshot: makes the bytes durable. Rejects if the disk is full. */
  end(): Promise<void>;
}

/** A snapshot's bytes, held for the reader (deletion waits) until `release`. */
export interface SnapshotReader {
  readonly chunks: number;
  /** Its bytes may be reused by the next call or `release`: write them out before asking again. */
  chunk(index: number): Promise<Uint8Array>;
  /** Whether the bytes contain the bootstrap boundary's prefix, as recorded when they were published. */
  readonly mentionsBoundary: boolean;
  release(): void;
}

/**
 * A read's first step (readRange's limit), and the least any step reads: short enough for small
 * JSON messages (docs/design/stepped-reads.md). Larger reads are taken in steps with a turn of the
 * event loop between them (http/stepped-read.ts, which grows a step that reads fast;
 * live/sse-session.ts).
 */
export const READ_STEP_BYTES = 512 * 1024;

/** A catch-up's bytes as a body sent from a file (segment-files.ts), and the offset they end at. */
export interface FileSpan {
  body: Blob;
  end: number;
}

export interface ReadSlice {
  /** Whole messages (array mode) or byte pieces, in order. */
  chunks: Uint8Array[];
  end: number;
}

/** What the live layer is told after a transaction commits. */
export type StreamChange =
  | { kind: "appended"; state: StreamState; start: number; messages: Uint8Array[] }
  | { kind: "closed"; state: StreamState }
  /** The retained floor rose: readers below it must be told (spec §3.4). */
  | { kind: "retained"; state: StreamState }
  | { kind: "gone"; id: number; key: string };

/**
 * What onChange listeners are told: this instance's committed changes, or that another instance
 * changed a stream ("touched": its notification says no more, so live readers read it again).
 */
export type ToldChange = StreamChange | { kind: "touched"; id: number; key: string };

/** The row id and path key of the stream a change is about. */
export function changedStream(change: ToldChange): { id: number; key: string } {
  return "state" in change ? { id: change.state.id, key: streamKey(change.state.bucket, change.state.name) } : change;
}

/**
 * What accepted appends tell the live layer, as one change (they are contiguous): their messages,
 * or, for a close alone, the close. Both engines' appliers of an append effect tell it.
 */
export function appendsChange(state: StreamState, appends: readonly AppendEffect[]): StreamChange {
  const first = appends[0]!;
  if (appends.length === 1 && first.messages.length === 0) return { kind: "closed", state };
  return { kind: "appended", state, start: first.start, messages: appends.length === 1 ? first.messages : appends.flatMap((e) => e.messages) };
}

export interface Page<T> {
  items: T[];
  total: number;
  /** `total` is a lower bound: a prefix's streams or buckets are counted only so far (stream-counts.ts). */
  totalCapped: boolean;
  nextCursor: string | null;
  hasMore: boolean;
}

/** A bucket as the store knows it (the HTTP layer renders the wire JSON, http/listing-json.ts). */
export interface BucketInfo {
  bucket: string;
  /** Live streams in the bucket (soft-deleted ones are not counted). */
  streams: number;
  createdAtMs: number;
}

export interface BucketSummary {
  bucket: string;
  streamCount: number;
}

/** One stream of a listing (spec §2.4), as committed and durable. */
export interface StreamSummary {
  name: string;
  closed: boolean;
  contentType: string;
  tail: number;
  createdAtMs: number;
  lastWriteAtMs: number | null;
  incarnation: string;
}

export interface ListQuery {
  prefix: string;
  after: string | null;
  limit: number;
}

/** What the metrics report of the store; the counters count acknowledged writes only. */
export interface StoreStats {
  appendedBytes: number;
  appendedMessages: number;
  /** Reads that met a damaged database page, and the streams they were of. */
  damagedReads: number;
  damagedStreams: number;
  databaseBytes: number;
  walBytes: number;
  /** Snapshot bytes kept in files beside the database, measured every few seconds; 0 where snapshots are rows. */
  snapshotFileBytes: number;
  /** Message bytes kept in segment files beside the database; 0 where all are rows. */
  segmentFileBytes: number;
  /** Bytes the disk reserve holds (disk-reserve.ts). */
  reserveBytes: number;
  /**
   * Work the engine runs behind commits and has not finished: reclaiming space nothing refers to,
   * and where it has them, moving runs to segment files and the start-up sweeps. 0 once caught up,
   * which is how an operator (or a test) knows a large delete has given its space back.
   */
  backgroundTasks: number;
}

export interface Store {
  /** The committed state of a live stream (expired streams read as absent). */
  get(key: string): Promise<StreamState | undefined>;
  readRange(state: StreamState, start: number, limitBytes: number, wholeMessages: boolean): Promise<ReadSlice>;
  isMessageStart(state: StreamState, offset: number): Promise<boolean>;
  /** Where an engine keeps bytes in files: a byte stream's bytes from `start` that one file holds, else null. */
  fileSpan?(state: StreamState, start: number, limitBytes: number): FileSpan | null;
  /** The producers a stream still remembers: those idle too long are forgotten (spec §5.3). */
  producers(state: StreamState): Promise<[string, ProducerState][]>;
  readonly producerLimits: ProducerLimits;
  /** Sliding TTL renewal for reads (spec §7.1); writes renew inside their transaction. */
  renewTtl(key: string): Promise<void>;

  /**
   * The one way a stream write runs (protocol/writes.ts): inside one transaction the engine loads
   * what the plan reads, lets it decide, and applies its effects; all of them commit or none.
   * The writes below are each one plan (stream-store.ts).
   */
  transact<T>(plan: WritePlan<T, SnapshotUpload>): Promise<T>;
  append(key: string, request: AppendRequest): Promise<AppendDecision>;
  create(key: string, request: CreateRequest): Promise<CreateOutcome>;
  delete(key: string, incarnation: string | null): Promise<DeleteOutcome>;
  /** Batched appends (spec §2.10): every frame decided in one transaction, one after the other. */
  appendBatch(key: string, request: BatchRequest): Promise<BatchOutcome>;

  /** The stored attributes of a state (durable), read on demand; null when none are set. */
  attrs(state: StreamState): Promise<string | null>;
  putAttrs(key: string, incarnation: string | null, attrs: string | null): Promise<AttrsOutcome>;

  stageSnapshot(): SnapshotUpload;
  /** Decides the publish of an upload whose body has been written whole, and makes it visible or drops it. */
  publishSnapshot(key: string, upload: SnapshotUpload, request: PublishRequest, digest: string, mentionsBoundary: boolean): Promise<PublishOutcome>;
  /** An upload that will not be published (too large, cut short). */
  discardSnapshot(upload: SnapshotUpload): Promise<void>;
  openSnapshot(meta: SnapshotMeta): Promise<SnapshotReader>;
  advanceRetention(key: string, target: ResourceTarget, incarnation: string | null): Promise<RetentionOutcome>;

  /** A ProtocolError when a new bucket would pass --max-buckets. */
  putBucket(bucket: string): Promise<"created" | "exists" | ProtocolError>;
  hasBucket(bucket: string): Promise<boolean>;
  getBucket(bucket: string): Promise<BucketInfo | undefined>;
  deleteBucket(bucket: string): Promise<"deleted" | "missing" | "not_empty">;
  listBuckets(query: ListQuery): Promise<Page<BucketSummary>>;
  listStreams(bucket: string, query: ListQuery): Promise<Page<StreamSummary>>;
  counts(): Promise<{ streams: number; buckets: number }>;
  /** Read-only queries for the console's introspection API. */
  readonly introspection: Introspection;
  /** DS subscriptions (subscriptions.ts). */
  readonly subscriptions: SubscriptionStore;

  /**
   * Whether a request failed because of the disk (full, read-only, an I/O error, a damaged page)
   * rather than a bug: nothing of it was written. Null for any other failure.
   */
  diskFailure(error: unknown): DiskFailure | null;
  /** Whether writes work, as the last one found: "ok" until one fails for lack of room or a read-only disk. */
  writeState(): WriteState;
  /**
   * When writes are failing, tries a small write that needs free space (at most once a second) and
   * resolves with the state it leaves; otherwise resolves with the state as it is.
   */
  probeWrite(): Promise<WriteState>;
  stats(): StoreStats;

  onChange(listener: (changes: ToldChange[]) => void): void;
  /**
   * Changes may have gone untold (an engine told of other instances' commits over a connection
   * that dropped): every live reader must re-read its stream. Engines that tell every change omit it.
   */
  onMissedChanges?(listener: () => void): void;
  /** Waits for queued writes to commit, then closes the database. */
  close(): Promise<void>;
}

/** What a listing shows of a stream, whichever engine holds it. */
export function summarize(s: StreamState): StreamSummary {
  return {
    name: s.name,
    closed: s.closed,
    contentType: s.contentType,
    tail: s.tail,
    createdAtMs: s.createdAtMs,
    lastWriteAtMs: s.lastWriteAtMs,
    incarnation: s.incarnation,
  };
}
