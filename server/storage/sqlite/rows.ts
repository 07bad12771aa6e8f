// Prepared statements and the mapping between `streams` rows and StreamState values.

import type { Database, Statement } from "bun:sqlite";
import type { ProducerTable } from "../../protocol/producer-table";
import type { StreamState } from "../../protocol/state";

export interface StreamRow {
  id: number;
  bucket: string;
  name: string;
  incarnation: string;
  content_type: string;
  tail: number;
  message_count: number;
  closed: number;
  closed_by: string | null;
  last_seq: string | null;
  ttl_s: number | null;
  expires_at_ms: number | null;
  touched_at_ms: number;
  created_at_ms: number;
  last_write_at_ms: number | null;
  fork_source_key: string | null;
  fork_source_id: number | null;
  fork_offset: number | null;
  fork_sub_offset: number | null;
  soft_deleted: number;
  attrs_id: number | null;
  retained_offset: number;
  snapshot_blob_id: number | null;
  snapshot_offset: number | null;
}

/** A stream row joined with its snapshot blob's description (load()). */
export interface LoadedStreamRow extends StreamRow {
  snapshot_type: string | null;
  snapshot_digest: string | null;
  snapshot_size: number | null;
}

export interface ProducerRow {
  stream_id: number;
  producer_id: string;
  epoch: number;
  last_seq: number;
  last_start: number;
  last_next: number;
  updated_at_ms: number;
}

export function rowToState(row: LoadedStreamRow, producers: ProducerTable, forkRefs: number): StreamState {
  return {
    id: row.id,
    bucket: row.bucket,
    name: row.name,
    incarnation: row.incarnation,
    contentType: row.content_type,
    tail: row.tail,
    messageCount: row.message_count,
    closed: row.closed === 1,
    closedBy: row.closed_by === null ? null : JSON.parse(row.closed_by),
    lastSeq: row.last_seq,
    ttlSeconds: row.ttl_s,
    expiresAtMs: row.expires_at_ms,
    touchedAtMs: row.touched_at_ms,
    createdAtMs: row.created_at_ms,
    lastWriteAtMs: row.last_write_at_ms,
    fork:
      row.fork_source_key === null
        ? null
        : { sourceKey: row.fork_source_key, sourceId: row.fork_source_id!, offset: row.fork_offset!, subOffset: row.fork_sub_offset! },
    softDeleted: row.soft_deleted === 1,
    forkRefs,
    attrsId: row.attrs_id,
    retained: row.retained_offset,
    snapshot:
      row.snapshot_blob_id === null
        ? null
        : { blobId: row.snapshot_blob_id, offset: row.snapshot_offset!, contentType: row.snapshot_type!, digest: row.snapshot_digest!, size: row.snapshot_size! },
    producers,
  };
}

const STREAM_COLUMNS =
  "bucket, name, incarnation, content_type, tail, message_count, closed, closed_by, last_seq, ttl_s, expires_at_ms, touched_at_ms, created_at_ms, last_write_at_ms, fork_source_key, fork_source_id, fork_offset, fork_sub_offset, soft_deleted, attrs_id, retained_offset, snapshot_blob_id, snapshot_offset";

const closedByText = (s: StreamState) => (s.closedBy === null ? null : JSON.stringify(s.closedBy));

function stateParams(s: StreamState) {
  return [
    s.bucket,
    s.name,
    s.incarnation,
    s.contentType,
    s.tail,
    s.messageCount,
    s.closed ? 1 : 0,
    closedByText(s),
    s.lastSeq,
    s.ttlSeconds,
    s.expiresAtMs,
    s.touchedAtMs,
    s.createdAtMs,
    s.lastWriteAtMs,
    s.fork?.sourceKey ?? null,
    s.fork?.sourceId ?? null,
    s.fork?.offset ?? null,
    s.fork?.subOffset ?? null,
    s.softDeleted ? 1 : 0,
    s.attrsId,
    s.retained,
    s.snapshot?.blobId ?? null,
    s.snapshot?.offset ?? null,
  ] as const;
}

export class Statements {
  readonly begin: Statement;
  readonly commit: Statement;
  readonly rollback: Statement;
  private readonly insertStream: Statement;
  private readonly updateStream: Statement;
  readonly updateTouch: Statement;
  private readonly updateHotColumns: Statement;
  readonly deleteStreamRow: Statement;
  readonly deleteProducers: Statement;
  readonly deleteProducer: Statement;
  readonly upsertProducer: Statement;
  readonly insertBucket: Statement;
  readonly getBucket: Statement<{ bucket_id: string; created_at_ms: number }>;
  readonly deleteBucket: Statement;
  readonly getMeta: Statement<{ value: string }>;
  readonly setMeta: Statement;

  constructor(db: Database) {
    this.begin = db.prepare("BEGIN IMMEDIATE");
    this.commit = db.prepare("COMMIT");
    this.rollback = db.prepare("ROLLBACK");
    const placeholders = STREAM_COLUMNS.split(",").map(() => "?").join(", ");
    this.insertStream = db.prepare(`INSERT INTO streams (${STREAM_COLUMNS}) VALUES (${placeholders})`);
    this.updateStream = db.prepare(
      `UPDATE streams SET ${STREAM_COLUMNS.split(", ").map((c) => `${c} = ?`).join(", ")} WHERE id = ?`,
    );
    this.updateTouch = db.prepare("UPDATE streams SET touched_at_ms = ? WHERE id = ?");
    this.updateHotColumns = db.prepare(
      "UPDATE streams SET tail = ?, message_count = ?, closed = ?, closed_by = ?, last_seq = ?, touched_at_ms = ?, last_write_at_ms = ? WHERE id = ?",
    );
    this.deleteStreamRow = db.prepare("DELETE FROM streams WHERE id = ?");
    this.deleteProducers = db.prepare("DELETE FROM producers WHERE stream_id = ?");
    this.deleteProducer = db.prepare("DELETE FROM producers WHERE stream_id = ? AND producer_id = ?");
    this.upsertProducer = db.prepare(
      `INSERT INTO producers (stream_id, producer_id, epoch, last_seq, last_start, last_next, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (stream_id, producer_id) DO UPDATE SET epoch = excluded.epoch, last_seq = excluded.last_seq,
       last_start = excluded.last_start, last_next = excluded.last_next, updated_at_ms = excluded.updated_at_ms`,
    );
    this.insertBucket = db.prepare("INSERT OR IGNORE INTO buckets (bucket_id, created_at_ms) VALUES (?, ?)");
    this.getBucket = db.prepare("SELECT bucket_id, created_at_ms FROM buckets WHERE bucket_id = ?");
    this.deleteBucket = db.prepare("DELETE FROM buckets WHERE bucket_id = ?");
    this.getMeta = db.prepare("SELECT value FROM meta WHERE key = ?");
    this.setMeta = db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
  }

  insert(state: StreamState): number {
    return Number(this.insertStream.run(...stateParams(state)).lastInsertRowid);
  }

  update(state: StreamState): void {
    this.updateStream.run(...stateParams(state), state.id);
  }

  /** Just the columns an append changes (applyAppend). */
  updateHot(s: StreamState): void {
    this.updateHotColumns.run(
      s.tail,
      s.messageCount,
      s.closed ? 1 : 0,
      closedByText(s),
      s.lastSeq,
      s.touchedAtMs,
      s.lastWriteAtMs,
      s.id,
    );
  }
}
