// Buckets in the SQLite engine (spec §2.1–§2.3) and the quotas a create meets: what a bucket
// write does inside its transaction, and the bucket reads. The transaction itself (group commit,
// admission while the disk is full) is sqlite-store.ts's.

import type { Database, Statement } from "bun:sqlite";
import type { ProtocolError } from "../../protocol/errors";
import { quotaCounts, quotaRefusal, type Quotas } from "../../protocol/quota";
import type { StreamState } from "../../protocol/state";
import type { Batch } from "./batch";
import type { DurableCounts } from "./durable-counts";
import type { Statements } from "./rows";
import type { BucketInfo } from "../store";
import type { StreamCounts } from "./stream-counts";

export interface BucketDeps {
  db: Database;
  st: Statements;
  quotas: Quotas;
  now: () => number;
  streamCounts: StreamCounts;
  durableCounts: DurableCounts;
  /** The stream's state in the transaction, reclaimed first if it has expired (StreamTx.live). */
  live: (tx: Batch, key: string) => StreamState | undefined;
}

export class SqliteBuckets {
  private readonly countBuckets: Statement<{ n: number }, [number]>;

  constructor(private readonly d: BucketDeps) {
    this.countBuckets = d.db.query<{ n: number }, [number]>("SELECT count(*) AS n FROM (SELECT 1 FROM buckets LIMIT ?)");
  }

  has(bucket: string): boolean {
    return this.d.st.getBucket.get(bucket) !== null;
  }

  get(bucket: string): BucketInfo | undefined {
    const row = this.d.st.getBucket.get(bucket);
    if (!row) return undefined;
    return { bucket: row.bucket_id, createdAtMs: row.created_at_ms, streams: this.d.durableCounts.inBucket(bucket, "").n };
  }

  put(tx: Batch, bucket: string): "created" | "exists" | ProtocolError {
    if (this.has(bucket)) return "exists";
    const refused = this.quotaRefusal(bucket, null);
    if (refused) return refused;
    this.d.st.insertBucket.run(bucket, this.d.now());
    tx.counts.buckets++;
    return "created";
  }

  remove(tx: Batch, bucket: string): "deleted" | "missing" | "not_empty" {
    if (!this.has(bucket)) return "missing";
    // Expired streams are reclaimed here rather than counted (spec §2.3), and a soft-deleted
    // source is no live stream: its forks, in other buckets, hold it (spec §7.4), and its row
    // stays until the last of them goes.
    if (this.liveStreamsIn(tx, bucket) > 0) return "not_empty";
    this.d.st.deleteBucket.run(bucket);
    tx.counts.buckets--;
    return "deleted";
  }

  /**
   * Counted inside the write's transaction, so concurrent creates cannot both take the last place;
   * `stream` is that transaction when the write creates a stream, null for an empty bucket.
   */
  quotaRefusal(bucket: string, stream: Batch | null): ProtocolError | null {
    const { bucketsUpTo, streamsUpTo } = quotaCounts(this.d.quotas, this.has(bucket), stream !== null);
    return quotaRefusal(this.d.quotas, {
      buckets: bucketsUpTo === null ? null : this.countBuckets.get(bucketsUpTo)!.n,
      streams: streamsUpTo === null ? null : this.liveStreamsIn(stream!, bucket),
    });
  }

  /**
   * The bucket's live streams as this transaction sees them. An expired stream is absent (spec
   * §7.1): the ones whose stored deadline has passed are reclaimed first, so none holds a place
   * until the sweeper finds it.
   */
  private liveStreamsIn(tx: Batch, bucket: string): number {
    const { streamCounts } = this.d;
    if (streamCounts.streamsIn(tx, bucket) === 0) return 0;
    for (const key of streamCounts.mayHaveExpiredIn(bucket, this.d.now())) this.d.live(tx, key);
    return streamCounts.streamsIn(tx, bucket);
  }
}
