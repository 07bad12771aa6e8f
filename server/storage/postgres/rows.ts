// Stream rows and StreamState values, both ways. bigint columns arrive as strings from Bun's
// client (they may pass 2^53); every offset and count ursa stores is below 2^53, so Number is exact.

import type { ProducerState } from "../../protocol/producer";
import { ProducerTable } from "../../protocol/producer-table";
import type { SnapshotMeta, StreamState } from "../../protocol/state";

export interface StreamRow {
  id: string;
  bucket: string;
  name: string;
  incarnation: string;
  content_type: string;
  tail: string;
  message_count: string;
  closed: boolean;
  closed_by: StreamState["closedBy"];
  last_seq: string | null;
  ttl_s: string | null;
  expires_at_ms: string | null;
  touched_at_ms: string;
  created_at_ms: string;
  last_write_at_ms: string | null;
  fork_source_key: string | null;
  fork_source_id: string | null;
  fork_offset: string | null;
  fork_sub_offset: string | null;
  soft_deleted: boolean;
  fork_refs: string;
  attrs_version: string;
  has_attrs: boolean;
  retained: string;
  snapshot: SnapshotMeta | null;
}

/**
 * A row's last touch: the later of its own (written by writes, and by a read once a quarter of
 * the TTL has passed) and the read renewal in stream_touches (schema step 3). GREATEST skips nulls.
 */
export const TOUCHED = "GREATEST(touched_at_ms, (SELECT t.touched_at_ms FROM stream_touches t WHERE t.stream_id = streams.id))";

/** The columns a state is built from (attrs themselves are read on demand). */
export const STREAM_COLUMNS = `id, bucket, name, incarnation, content_type, tail, message_count, closed, closed_by, last_seq,
  ttl_s, expires_at_ms, ${TOUCHED} AS touched_at_ms, created_at_ms, last_write_at_ms, fork_source_key, fork_source_id, fork_offset,
  fork_sub_offset, soft_deleted, fork_refs, attrs_version, attrs IS NOT NULL AS has_attrs, retained, snapshot`;

const num = (v: string | number) => Number(v);
const opt = (v: string | number | null) => (v === null ? null : Number(v));

export function stateOf(row: StreamRow, producers: ProducerTable = ProducerTable.EMPTY): StreamState {
  return {
    id: num(row.id),
    bucket: row.bucket,
    name: row.name,
    incarnation: row.incarnation,
    contentType: row.content_type,
    tail: num(row.tail),
    messageCount: num(row.message_count),
    closed: row.closed,
    closedBy: row.closed_by,
    lastSeq: row.last_seq,
    ttlSeconds: opt(row.ttl_s),
    expiresAtMs: opt(row.expires_at_ms),
    touchedAtMs: num(row.touched_at_ms),
    createdAtMs: num(row.created_at_ms),
    lastWriteAtMs: opt(row.last_write_at_ms),
    fork:
      row.fork_source_id === null
        ? null
        : { sourceKey: row.fork_source_key!, sourceId: num(row.fork_source_id), offset: num(row.fork_offset!), subOffset: num(row.fork_sub_offset!) },
    softDeleted: row.soft_deleted,
    forkRefs: num(row.fork_refs),
    // The attributes' version stands for their row: it changes with every replace, so two states
    // with the same attrsId hold the same attributes (what the SQLite engine's row id promises).
    attrsId: row.has_attrs ? num(row.attrs_version) : null,
    retained: num(row.retained),
    snapshot: row.snapshot,
    producers,
  };
}

export interface ProducerRow {
  producer_id: string;
  epoch: string;
  last_seq: string;
  last_start: string;
  last_next: string;
  updated_at_ms: string;
}

export function producerOf(row: ProducerRow): [string, ProducerState] {
  return [
    row.producer_id,
    { epoch: num(row.epoch), lastSeq: num(row.last_seq), lastStart: num(row.last_start), lastNext: num(row.last_next), updatedAtMs: num(row.updated_at_ms) },
  ];
}
