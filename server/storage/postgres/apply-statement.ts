// The one statement that applies a group of decided appends (conditional-apply.ts), each only if
// its stream's row still has the version the decision read. A group commit of N appends was N
// statements, each a plan, an executor start, a trigger call and a round of Bun's encoding; as
// one statement over arrays, PostgreSQL and the client pay those once per group, and the rows
// cost what rows cost. Alone, the statement is its own transaction: no BEGIN, no COMMIT.
//
// Every other part reads `s`, the updated rows, so an append whose version moved writes nothing.
// Each stream may appear once (an UPDATE changes a row at most once per statement); the commit
// queue (conditional-commit.ts) sends a stream's later appends in a statement of their own.

import type { ProducerState } from "../../protocol/producer";
import type { StreamState } from "../../protocol/state";
import { CHANNEL } from "./notify";

/** An append decided on version `version` of stream `next.id`: what it writes if that still holds. */
export interface AppendApply {
  key: string;
  version: string;
  /** The stream's state after the append. */
  next: StreamState;
  atMs: number;
  starts: number[];
  appendStarts: number[];
  data: Uint8Array[];
  evicts: string[];
  producers: [string, ProducerState][];
}

export const APPLY = `WITH u AS (
    SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::boolean[], $6::text[], $7::text[], $8::bigint[], $9::bigint[])
      AS u(id, version, tail, message_count, closed, closed_by, last_seq, touched_at_ms, last_write_at_ms)),
  s AS (
    UPDATE streams t SET tail = u.tail, message_count = u.message_count, closed = u.closed, closed_by = u.closed_by::jsonb,
      last_seq = u.last_seq, touched_at_ms = u.touched_at_ms, last_write_at_ms = u.last_write_at_ms
    FROM u WHERE t.id = u.id AND t.version = u.version RETURNING t.id),
  m AS (INSERT INTO msgs (stream_id, start, append_start, at_ms, data)
    SELECT m.* FROM unnest($10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[], $14::bytea[]) AS m(stream_id, start, append_start, at_ms, data)
    WHERE m.stream_id IN (SELECT id FROM s)),
  e AS (DELETE FROM producers p USING unnest($15::bigint[], $16::text[]) AS x(stream_id, producer_id)
    WHERE p.stream_id = x.stream_id AND p.producer_id = x.producer_id AND x.stream_id IN (SELECT id FROM s)),
  p AS (INSERT INTO producers (stream_id, producer_id, epoch, last_seq, last_start, last_next, updated_at_ms)
    SELECT x.* FROM unnest($17::bigint[], $18::text[], $19::bigint[], $20::bigint[], $21::bigint[], $22::bigint[], $23::bigint[])
      AS x(stream_id, producer_id, epoch, last_seq, last_start, last_next, updated_at_ms)
    WHERE x.stream_id IN (SELECT id FROM s)
    ON CONFLICT (stream_id, producer_id) DO UPDATE SET epoch = EXCLUDED.epoch, last_seq = EXCLUDED.last_seq,
      last_start = EXCLUDED.last_start, last_next = EXCLUDED.last_next, updated_at_ms = EXCLUDED.updated_at_ms),
  n AS (SELECT pg_notify('${CHANNEL}', w) FROM unnest($24::text[]) AS w)
  SELECT coalesce((SELECT array_agg(id::text) FROM s), '{}') AS applied, (SELECT count(*) FROM n)::int AS notified`;

/**
 * The statement's parameters for `applies` (no stream twice), sending `wakeUps` (notify.ts) as
 * it commits. A wake-up for an append that did not apply costs its readers a read that finds
 * nothing new, and lets the payloads be built before the outcome is known.
 */
export function applyValues(applies: readonly AppendApply[], wakeUps: readonly string[]): unknown[] {
  const v: unknown[][] = Array.from({ length: 23 }, () => []);
  for (const a of applies) {
    const s = a.next;
    v[0]!.push(s.id);
    v[1]!.push(a.version);
    v[2]!.push(s.tail);
    v[3]!.push(s.messageCount);
    v[4]!.push(s.closed);
    v[5]!.push(s.closedBy === null ? null : JSON.stringify(s.closedBy));
    v[6]!.push(s.lastSeq);
    v[7]!.push(s.touchedAtMs);
    v[8]!.push(s.lastWriteAtMs);
    a.starts.forEach((start, i) => {
      v[9]!.push(s.id);
      v[10]!.push(start);
      v[11]!.push(a.appendStarts[i]);
      v[12]!.push(a.atMs);
      v[13]!.push(a.data[i]);
    });
    for (const id of a.evicts) {
      v[14]!.push(s.id);
      v[15]!.push(id);
    }
    for (const [id, p] of a.producers) {
      v[16]!.push(s.id);
      v[17]!.push(id);
      v[18]!.push(p.epoch);
      v[19]!.push(p.lastSeq);
      v[20]!.push(p.lastStart);
      v[21]!.push(p.lastNext);
      v[22]!.push(p.updatedAtMs);
    }
  }
  return [...v, wakeUps];
}

/** The ids of the streams the statement updated. */
export function appliedIds(rows: { applied: string[] }[]): Set<number> {
  return new Set((rows[0]?.applied ?? []).map(Number));
}
