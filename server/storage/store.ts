// The one storage interface (design.md): the transaction boundary. A write reads the stream's
// state, lets server/protocol decide, and applies the effect atomically; data, Stream-Seq,
// producer state, closure and TTL move together or not at all.

import type { AppendDecision, AppendRequest } from "../protocol/append";
import type { CreateDecision, CreateRequest } from "../protocol/create";
import type { ProtocolError } from "../protocol/errors";
import type { ProducerLimits, ProducerState } from "../protocol/producer";
import type { StreamSummary } from "../introspection-api";
import type { StreamState } from "../protocol/state";
import type { Introspection } from "./introspection";
import type { DiskFailure, WriteState } from "./write-health";

export type CreateOutcome = Exclude<CreateDecision, { kind: "create" }> | { kind: "created"; state: StreamState };

export type DeleteOutcome = ProtocolError | { kind: "deleted"; soft: boolean };

export interface ReadSlice {
  /** Whole messages (array mode) or byte pieces, in order. */
  chunks: Uint8Array[];
  end: number;
}

/** What the live layer is told after a transaction commits. */
export type StreamChange =
  | { kind: "appended"; state: StreamState; start: number; messages: Uint8Array[] }
  | { kind: "closed"; state: StreamState }
  | { kind: "gone"; id: number; key: string };

export interface Page<T> {
  items: T[];
  total: number;
  nextCursor: string | null;
  hasMore: boolean;
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
  databaseBytes: number;
  walBytes: number;
}

export interface Store {
  /** The committed state of a live stream (expired streams read as absent). */
  get(key: string): StreamState | undefined;
  readRange(state: StreamState, start: number, limitBytes: number, wholeMessages: boolean): ReadSlice;
  isMessageStart(state: StreamState, offset: number): boolean;
  /** The producers a stream still remembers: those idle too long are forgotten (spec §5.3). */
  producers(state: StreamState): [string, ProducerState][];
  readonly producerLimits: ProducerLimits;
  /** Sliding TTL renewal for reads (spec §7.1); writes renew inside their transaction. */
  renewTtl(key: string): void;

  append(key: string, request: AppendRequest): Promise<AppendDecision>;
  create(key: string, request: CreateRequest): Promise<CreateOutcome>;
  delete(key: string, incarnation: string | null): Promise<DeleteOutcome>;

  /** A ProtocolError when a new bucket would pass --max-buckets. */
  putBucket(bucket: string): Promise<"created" | "exists" | ProtocolError>;
  hasBucket(bucket: string): boolean;
  getBucket(bucket: string): { bucket_id: string; streams: number; created_at_ms: number } | undefined;
  deleteBucket(bucket: string): Promise<"deleted" | "missing" | "not_empty">;
  listBuckets(query: ListQuery): Page<{ bucket_id: string; stream_count: number }>;
  listStreams(bucket: string, query: ListQuery): Page<StreamSummary>;
  counts(): { streams: number; buckets: number };
  /** Read-only queries for the console's introspection API. */
  readonly introspection: Introspection;

  /**
   * Whether a write failed because of the disk (full, read-only, an I/O error) rather than a bug:
   * nothing of it was written, and it may succeed later. Null for any other failure.
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

  onChange(listener: (changes: StreamChange[]) => void): void;
  /** Waits for queued writes to commit, then closes the database. */
  close(): Promise<void>;
}
