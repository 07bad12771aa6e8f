// One stream's state, read from its rows on demand (stream-cache.ts): the stream row with its
// snapshot blob's description, how many forks refer to it, and its producers. Three index seeks;
// nothing here reads another stream's rows.

import type { Database, Statement } from "bun:sqlite";
import type { ProducerState } from "../../protocol/producer";
import { ProducerTable } from "../../protocol/producer-table";
import type { StreamState } from "../../protocol/state";
import { rowToState, type LoadedStreamRow, type ProducerRow, type StreamRow } from "./rows";

// The snapshot blob is looked up apart, for the few streams that have one: joined in, it made
// every load (even of a missing stream) slower (docs/design/stream-cache.md).
const LOAD = "SELECT s.*, (SELECT count(*) FROM streams f WHERE f.fork_source_id = s.id) AS fork_refs FROM streams s";

type Row = StreamRow & { fork_refs: number };

export class StateLoader {
  private readonly byPath: Statement<Row>;
  private readonly byId: Statement<Row>;
  private readonly blob: Statement<{ snapshot_type: string; snapshot_digest: string; snapshot_size: number }>;
  private readonly producers: Statement<ProducerRow>;

  constructor(db: Database) {
    this.byPath = db.prepare(`${LOAD} WHERE s.bucket = ? AND s.name = ?`);
    this.byId = db.prepare(`${LOAD} WHERE s.id = ?`);
    this.blob = db.prepare("SELECT content_type AS snapshot_type, digest AS snapshot_digest, size AS snapshot_size FROM snapshot_blobs WHERE id = ?");
    this.producers = db.prepare("SELECT * FROM producers WHERE stream_id = ?");
  }

  /** The stream at the path key `bucket/name` (a bucket ID holds no "/"), or undefined. */
  load(key: string): StreamState | undefined {
    const slash = key.indexOf("/");
    const row = this.byPath.get(key.slice(0, slash), key.slice(slash + 1));
    return row ? this.toState(row) : undefined;
  }

  loadById(id: number): StreamState | undefined {
    const row = this.byId.get(id);
    return row ? this.toState(row) : undefined;
  }

  private toState(row: Row): StreamState {
    const producers: [string, ProducerState][] = [];
    for (const p of this.producers.iterate(row.id)) {
      producers.push([p.producer_id, { epoch: p.epoch, lastSeq: p.last_seq, lastStart: p.last_start, lastNext: p.last_next, updatedAtMs: p.updated_at_ms }]);
    }
    const blob = row.snapshot_blob_id === null ? null : this.blob.get(row.snapshot_blob_id);
    const loaded: LoadedStreamRow = { ...row, snapshot_type: blob?.snapshot_type ?? null, snapshot_digest: blob?.snapshot_digest ?? null, snapshot_size: blob?.snapshot_size ?? null };
    return rowToState(loaded, ProducerTable.from(producers), row.fork_refs);
  }
}
