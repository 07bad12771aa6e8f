// Stream and bucket counts, maintained rather than recounted (schema.ts, version 6): each
// transaction that creates or deletes a stream or bucket adds its changes up in its Batch, and
// `write` applies them to `buckets.stream_count` and the `meta` totals before COMMIT, once per
// transaction. What readers are told is exact:
//   - the stored counts leave out soft-deleted sources (they are no longer streams to a client)
//     and include every other row, so
//   - a stream that has expired but whose row is not yet reclaimed (expiry is found lazily, on
//     the next touch or by the sweeper every few seconds) is taken off at read time: the streams
//     whose stored deadline has passed are found through the deadline index, and each is asked
//     whether it has expired (its state in memory may hold a later TTL touch than its row). Only
//     streams expired within the last sweep interval, or touched since their row was, are looked
//     at: the cost follows them, not the bucket's size.
// A count of the streams whose ID starts with a prefix cannot be kept for every prefix: it is
// counted through the name index, up to PREFIX_COUNT_CAP, and reported as capped beyond that.

import type { Database, Statement } from "bun:sqlite";
import { streamKey } from "../../protocol/state";
import type { Batch } from "./batch";
import { PREFIX_COUNT_CAP, upperBound, type Count } from "../prefix-count";
import { STREAM_DEADLINE } from "./schema";
import type { Statements } from "./rows";

/** The most expired streams one sweep reclaims; the next sweep goes on. */
const SWEEP_BATCH = 1000;

export class StreamCounts {
  /** Durable totals: what readers see, changed once a transaction is durable. */
  private streamTotal: number;
  private bucketTotal: number;
  private readonly addToBucket: Statement;
  private readonly addToTotal: Statement;
  private readonly bucketCount: Statement<{ stream_count: number }>;
  private readonly expiredInBucket: Statement<{ name: string }>;
  private readonly expiredAnywhere: Statement<{ bucket: string; name: string }>;
  private readonly expiredEverywhere: Statement<{ bucket: string; name: string }>;
  private readonly inRange: Statement<{ n: number }>;
  private readonly bucketsInRange: Statement<{ n: number }>;

  constructor(
    db: Database,
    st: Statements,
  ) {
    this.streamTotal = Number(st.getMeta.get("stream_count")?.value ?? 0);
    this.bucketTotal = Number(st.getMeta.get("bucket_count")?.value ?? 0);
    this.addToBucket = db.prepare("UPDATE buckets SET stream_count = stream_count + ? WHERE bucket_id = ?");
    this.addToTotal = db.prepare(
      "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + CAST(excluded.value AS INTEGER)",
    );
    this.bucketCount = db.prepare("SELECT stream_count FROM buckets WHERE bucket_id = ?");
    const { expression, where } = STREAM_DEADLINE;
    this.expiredInBucket = db.prepare(`SELECT name FROM streams WHERE bucket = ? AND ${where} AND ${expression} <= ? AND soft_deleted = 0`);
    const expiredSql = `SELECT bucket, name FROM streams WHERE ${where} AND ${expression} <= ? AND soft_deleted = 0`;
    this.expiredAnywhere = db.prepare(`${expiredSql} LIMIT ${SWEEP_BATCH}`);
    this.expiredEverywhere = db.prepare(expiredSql);
    this.inRange = db.prepare(
      `SELECT count(*) AS n FROM (SELECT 1 FROM streams WHERE bucket = ? AND name >= ? AND name < ? AND soft_deleted = 0 LIMIT ${PREFIX_COUNT_CAP + 1})`,
    );
    this.bucketsInRange = db.prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM buckets WHERE bucket_id >= ? AND bucket_id < ? LIMIT ${PREFIX_COUNT_CAP + 1})`);
  }

  // ---- inside a transaction ----------------------------------------------------------------

  /** Before COMMIT: the transaction's changes, into the stored counts. */
  write(tx: Batch): void {
    const c = tx.counts;
    let streams = 0;
    for (const [bucket, delta] of c.streams) {
      if (delta === 0) continue;
      this.addToBucket.run(delta, bucket);
      streams += delta;
    }
    if (streams !== 0) this.addToTotal.run("stream_count", streams);
    if (c.buckets !== 0) this.addToTotal.run("bucket_count", c.buckets);
  }

  /** The bucket's stored count as this transaction sees it (its own changes included). */
  streamsIn(tx: Batch, bucket: string): number {
    return (this.bucketCount.get(bucket)?.stream_count ?? 0) + (tx.counts.streams.get(bucket) ?? 0);
  }

  // ---- once durable --------------------------------------------------------------------------

  /** The stored totals `write` changed, now that readers may see them. */
  durable(tx: Batch): void {
    for (const delta of tx.counts.streams.values()) this.streamTotal += delta;
    this.bucketTotal += tx.counts.buckets;
  }

  // ---- reads ---------------------------------------------------------------------------------

  /** Live streams in the whole store. */
  total(expired: (key: string) => boolean, nowMs: number): number {
    let n = this.streamTotal;
    for (const { bucket, name } of this.expiredEverywhere.iterate(nowMs)) if (expired(streamKey(bucket, name))) n--;
    return n;
  }

  get buckets(): number {
    return this.bucketTotal;
  }

  /**
   * Live streams in the bucket whose ID starts with `prefix`. The table holds what has committed;
   * `notDurable` is what the writes committed but not yet durable changed in that range (live
   * streams added less removed), which readers must not see yet.
   */
  inBucket(bucket: string, prefix: string, expired: (key: string) => boolean, nowMs: number, notDurable: number): Count {
    let n = -notDurable;
    let capped = false;
    if (prefix === "") {
      n += this.bucketCount.get(bucket)?.stream_count ?? 0;
    } else {
      n += this.inRange.get(bucket, prefix, upperBound(prefix))!.n;
      capped = n > PREFIX_COUNT_CAP;
      if (capped) return { n: PREFIX_COUNT_CAP, capped };
    }
    for (const { name } of this.expiredInBucket.iterate(bucket, nowMs)) if (name.startsWith(prefix) && expired(streamKey(bucket, name))) n--;
    return { n, capped };
  }

  /** Buckets whose ID starts with `prefix`. */
  bucketsWith(prefix: string): Count {
    if (prefix === "") return { n: this.bucketTotal, capped: false };
    const n = this.bucketsInRange.get(prefix, upperBound(prefix))!.n;
    return n > PREFIX_COUNT_CAP ? { n: PREFIX_COUNT_CAP, capped: true } : { n, capped: false };
  }

  /** The bucket's streams whose stored deadline has passed. */
  mayHaveExpiredIn(bucket: string, nowMs: number): string[] {
    return this.expiredInBucket.all(bucket, nowMs).map(({ name }) => streamKey(bucket, name));
  }

  /** Streams whose stored deadline has passed, for the sweeper to ask about (SWEEP_BATCH at most). */
  mayHaveExpired(nowMs: number): string[] {
    return this.expiredAnywhere.all(nowMs).map(({ bucket, name }) => streamKey(bucket, name));
  }
}
