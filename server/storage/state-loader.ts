// One stream's state, read from its rows on demand (stream-cache.ts): the stream row with its
// snapshot blob's description, how many forks refer to it, and its producers. Three index seeks;
// nothing here reads another stream's rows.

import type { Database, Statement } from "bun:sqlite";
import type { ProducerState } from "../protocol/producer";
import type { StreamState } from "../protocol/state";
import { rowToState, type LoadedStreamRow, type ProducerRow } from "./rows";

const LOAD = `SELECT s.*, b.content_type AS snapshot_type, b.digest AS snapshot_digest, b.size AS snapshot_size,
  (SELECT count(*) FROM streams f WHERE f.fork_source_id = s.id) AS fork_refs
  FROM streams s LEFT JOIN snapshot_blobs b ON b.id = s.snapshot_blob_id`;

export class StateLoader {
  private readonly byPath: Statement<LoadedStreamRow & { fork_refs: number }>;
  private readonly byId: Statement<LoadedStreamRow & { fork_refs: number }>;
  private readonly producers: Statement<ProducerRow>;

  constructor(db: Database) {
    this.byPath = db.prepare(`${LOAD} WHERE s.bucket = ? AND s.name = ?`);
    this.byId = db.prepare(`${LOAD} WHERE s.id = ?`);
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

  private toState(row: LoadedStreamRow & { fork_refs: number }): StreamState {
    const producers = new Map<string, ProducerState>();
    for (const p of this.producers.iterate(row.id)) {
      producers.set(p.producer_id, { epoch: p.epoch, lastSeq: p.last_seq, lastStart: p.last_start, lastNext: p.last_next, updatedAtMs: p.updated_at_ms });
    }
    return rowToState(row, producers, row.fork_refs);
  }
}
