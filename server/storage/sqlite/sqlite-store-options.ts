// What a SQLite store is opened with: the database's path and how durable a commit is, and for
// each mechanism its knobs and its thread's entry point; every one but the first two has a default.

import type { ProducerLimits } from "../../protocol/producer";
import type { Quotas } from "../../protocol/quota";
import type { CommitObserver } from "../commit-observer";
import type { StoreLog } from "../store-log";
import type { CheckpointerMessage } from "./checkpointer";

export type SyncMode = "full" | "normal";

export interface SqliteStoreOptions {
  /** A file path, or ":memory:" for an ephemeral store. */
  path: string;
  sync: SyncMode;
  now?: () => number;
  /** How often expired streams are reclaimed in the background. */
  sweepIntervalMs?: number;
  /**
   * The checkpoint thread's entry point. Inside the compiled binary it must be given relative to
   * the entry module (main.ts), the only location the bundle keeps.
   */
  checkpointerUrl?: URL;
  /** The snapshot read thread's entry point, given as `checkpointerUrl` is. */
  snapshotReaderUrl?: URL;
  /** How often the checkpoint thread copies the WAL into the database file (checkpoints.ts). */
  checkpointEveryMs?: number;
  /** How often deferred index and summary rows are written (message-log.ts). */
  materializeEveryMs?: number;
  /** How many bytes of the newest messages reads may find in memory (recent-messages.ts). */
  recentBytes?: number;
  /** What to do when the disk refuses a sync; by default the process exits. */
  onSyncFailure?: (error: unknown) => void;
  /** Whether requests other than the write being committed are in progress; none, if not given. */
  busy?: () => boolean;
  /** How long idle producers are remembered and how many a stream holds (spec §5.3). */
  producerLimits?: ProducerLimits;
  /** Caps on buckets and on streams per bucket; none if not given. */
  quotas?: Quotas;
  /** Told each transaction's size and time, and each sync's. */
  commitObserver?: CommitObserver;
  /** Where the checkpoint thread's trouble is reported; stderr if not given. */
  onCheckpointMessage?: (message: CheckpointerMessage) => void;
  /** Bytes held in reserve beside the database, given up when the disk fills (disk-reserve.ts); none if not given. */
  reserveBytes?: number;
  /** The integrity check thread's entry point, given as `checkpointerUrl` is; the check runs unless false. */
  integrityCheckUrl?: URL | false;
  /** Where a full disk and a damaged database are reported; stderr if not given. */
  log?: StoreLog;
  /** How many stream states are kept in memory (stream-cache.ts); DEFAULT_CACHED_STREAMS if not given. */
  cachedStreams?: number;
  /** How many bytes of a byte stream's messages go to one segment file (segment-tiering.ts); SEGMENT_BYTES if not given, none moved if 0. */
  segmentBytes?: number;
}
