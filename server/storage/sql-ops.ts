// The writes a transaction makes, as plain data. Decisions run on the event loop; these ops are
// then applied in one SQLite transaction by whichever CommitSink the store uses (a worker thread
// for a database on disk), so the event loop never waits for SQLite or the disk.

import type { Database, Statement } from "bun:sqlite";

/** A `streams` row: id first, then the columns in STREAM_COLUMNS order. */
export type StreamRowValues = readonly (string | number | null)[];

export type SqlOp =
  | { op: "stream"; row: StreamRowValues }
  | { op: "messages"; streamId: number; start: number; data: Uint8Array[] }
  | { op: "producer"; streamId: number; producerId: string; epoch: number; lastSeq: number; lastStart: number; lastNext: number; updatedAtMs: number }
  | { op: "touch"; streamId: number; touchedAtMs: number }
  | { op: "drop"; streamId: number; keepRow: boolean }
  | { op: "meta"; key: string; value: string }
  | { op: "bucket"; bucket: string; createdAtMs: number }
  | { op: "drop-bucket"; bucket: string }
  | { op: "copy-below"; to: number; from: number; offset: number }
  | { op: "copy-rows"; to: number; from: number; start: number; end: number }
  | { op: "copy-prefix"; to: number; from: number; offset: number; bytes: number };

export const STREAM_COLUMNS = [
  "bucket",
  "name",
  "incarnation",
  "content_type",
  "tail",
  "message_count",
  "closed",
  "closed_by",
  "last_seq",
  "ttl_s",
  "expires_at_ms",
  "touched_at_ms",
  "created_at_ms",
  "last_write_at_ms",
  "fork_source_key",
  "fork_source_id",
  "fork_offset",
  "fork_sub_offset",
  "soft_deleted",
  "attrs",
] as const;

export class SqlWriter {
  readonly begin: Statement;
  readonly commit: Statement;
  readonly rollback: Statement;
  private readonly upsertStream: Statement;
  private readonly insertMessage: Statement;
  private readonly upsertProducer: Statement;
  private readonly touch: Statement;
  private readonly deleteMessages: Statement;
  private readonly deleteProducers: Statement;
  private readonly deleteStream: Statement;
  private readonly setMeta: Statement;
  private readonly insertBucket: Statement;
  private readonly deleteBucket: Statement;
  private readonly copyBelow: Statement;
  private readonly copyRows: Statement;
  private readonly copyPrefix: Statement;

  constructor(db: Database) {
    this.begin = db.prepare("BEGIN IMMEDIATE");
    this.commit = db.prepare("COMMIT");
    this.rollback = db.prepare("ROLLBACK");
    const cols = STREAM_COLUMNS.join(", ");
    this.upsertStream = db.prepare(
      `INSERT INTO streams (id, ${cols}) VALUES (?${", ?".repeat(STREAM_COLUMNS.length)})
       ON CONFLICT (id) DO UPDATE SET ${STREAM_COLUMNS.map((c) => `${c} = excluded.${c}`).join(", ")}`,
    );
    this.insertMessage = db.prepare("INSERT INTO msgs (stream_id, start, seg, data) VALUES (?, ?, ?, ?)");
    this.upsertProducer = db.prepare(
      `INSERT INTO producers (stream_id, producer_id, epoch, last_seq, last_start, last_next, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (stream_id, producer_id) DO UPDATE SET epoch = excluded.epoch, last_seq = excluded.last_seq,
       last_start = excluded.last_start, last_next = excluded.last_next, updated_at_ms = excluded.updated_at_ms`,
    );
    this.touch = db.prepare("UPDATE streams SET touched_at_ms = ? WHERE id = ?");
    this.deleteMessages = db.prepare("DELETE FROM msgs WHERE stream_id = ?");
    this.deleteProducers = db.prepare("DELETE FROM producers WHERE stream_id = ?");
    this.deleteStream = db.prepare("DELETE FROM streams WHERE id = ?");
    this.setMeta = db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
    this.insertBucket = db.prepare("INSERT OR IGNORE INTO buckets (bucket_id, created_at_ms) VALUES (?, ?)");
    this.deleteBucket = db.prepare("DELETE FROM buckets WHERE bucket_id = ?");
    this.copyBelow = db.prepare("INSERT INTO msgs (stream_id, start, seg, data) SELECT ?, start, seg, data FROM msgs WHERE stream_id = ? AND start < ?");
    this.copyRows = db.prepare(
      "INSERT INTO msgs (stream_id, start, seg, data) SELECT ?, start, seg, data FROM msgs WHERE stream_id = ? AND start >= ? AND start < ?",
    );
    this.copyPrefix = db.prepare(
      "INSERT INTO msgs (stream_id, start, seg, data) SELECT ?, start, seg, substr(data, 1, ?) FROM msgs WHERE stream_id = ? AND start = ?",
    );
  }

  apply(ops: readonly SqlOp[]): void {
    for (const o of ops) {
      switch (o.op) {
        case "stream":
          this.upsertStream.run(...o.row);
          break;
        case "messages": {
          // One append's messages share `seg`, the offset where the append began (fork sub-offsets).
          let pos = o.start;
          for (const m of o.data) {
            this.insertMessage.run(o.streamId, pos, o.start, m);
            pos += m.length;
          }
          break;
        }
        case "producer":
          this.upsertProducer.run(o.streamId, o.producerId, o.epoch, o.lastSeq, o.lastStart, o.lastNext, o.updatedAtMs);
          break;
        case "touch":
          this.touch.run(o.touchedAtMs, o.streamId);
          break;
        case "drop":
          this.deleteMessages.run(o.streamId);
          this.deleteProducers.run(o.streamId);
          if (!o.keepRow) this.deleteStream.run(o.streamId);
          break;
        case "meta":
          this.setMeta.run(o.key, o.value);
          break;
        case "bucket":
          this.insertBucket.run(o.bucket, o.createdAtMs);
          break;
        case "drop-bucket":
          this.deleteBucket.run(o.bucket);
          break;
        case "copy-below":
          this.copyBelow.run(o.to, o.from, o.offset);
          break;
        case "copy-rows":
          this.copyRows.run(o.to, o.from, o.start, o.end);
          break;
        case "copy-prefix":
          this.copyPrefix.run(o.to, o.bytes, o.from, o.offset);
          break;
      }
    }
  }

  /** One transaction: all of `ops` or none of them. */
  transaction(ops: readonly SqlOp[]): void {
    this.begin.run();
    try {
      this.apply(ops);
      this.commit.run();
    } catch (error) {
      try {
        this.rollback.run();
      } catch {
        // SQLite may already have rolled back.
      }
      throw error;
    }
  }
}
