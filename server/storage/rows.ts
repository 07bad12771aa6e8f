// Prepared statements and the mapping between `streams` rows and StreamState values.

import type { Database, Statement } from "bun:sqlite";
import type { StreamRowValues } from "./sql-ops";
import type { ProducerState } from "../protocol/producer";
import type { StreamState } from "../protocol/state";

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
  attrs: string | null;
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

export function rowToState(row: StreamRow, producers: Map<string, ProducerState>, forkRefs: number): StreamState {
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
    attrs: row.attrs,
    producers,
  };
}

/** The row values SqlWriter's upsert takes: id, then STREAM_COLUMNS. */
export function stateRow(s: StreamState): StreamRowValues {
  return [
    s.id,
    s.bucket,
    s.name,
    s.incarnation,
    s.contentType,
    s.tail,
    s.messageCount,
    s.closed ? 1 : 0,
    s.closedBy === null ? null : JSON.stringify(s.closedBy),
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
    s.attrs,
  ];
}

/** Read statements, on the event loop's connection, which only ever reads committed data. */
export class ReadStatements {
  readonly readFrom: Statement<{ start: number; data: Uint8Array }>;
  readonly messageAt: Statement<{ seg: number }>;
  readonly appendRows: Statement<{ start: number; seg: number; len: number }>;
  readonly countBelow: Statement<{ n: number }>;
  readonly getMeta: Statement<{ value: string }>;
  readonly setMeta: Statement;

  constructor(db: Database) {
    // Starts at the message holding `start` (reads may begin inside a byte-stream append).
    this.readFrom = db.prepare(
      `SELECT start, data FROM msgs WHERE stream_id = ?1 AND start < ?3
       AND start >= coalesce((SELECT max(start) FROM msgs WHERE stream_id = ?1 AND start <= ?2), 0) ORDER BY start`,
    );
    this.messageAt = db.prepare("SELECT seg FROM msgs WHERE stream_id = ? AND start = ?");
    this.appendRows = db.prepare("SELECT start, seg, length(data) AS len FROM msgs WHERE stream_id = ? AND start >= ? ORDER BY start");
    this.countBelow = db.prepare("SELECT count(*) AS n FROM msgs WHERE stream_id = ? AND start < ?");
    this.getMeta = db.prepare("SELECT value FROM meta WHERE key = ?");
    this.setMeta = db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
  }
}
