// The one statement that applies a group of decided appends (conditional-apply.ts), each only if
// its stream's row still has the version the decision read. A group commit of N appends was N
// statements, each a plan, an executor start, a trigger call and a round of Bun's encoding; as
// one statement over arrays, PostgreSQL and the client pay those once per group, and the rows
// cost what rows cost. Alone, the statement is its own transaction: no BEGIN, no COMMIT.
//
// Every other part reads `s`, the updated rows, so an append whose version moved writes nothing.
// Each stream may appear once (an UPDATE changes a row at most once per statement): a group never
// holds a stream twice, as PgStore.transact lets one conditional write per stream be in flight.

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
    SELECT m.stream_id, m.start, m.append_start, m.at_ms, substring($16::bytea FROM m.place + 1 FOR m.length)
    FROM unnest($10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[], $14::int[], $15::int[]) AS m(stream_id, start, append_start, at_ms, place, length)
    WHERE m.stream_id IN (SELECT id FROM s)),
  e AS (DELETE FROM producers p USING unnest($17::bigint[], $18::text[]) AS x(stream_id, producer_id)
    WHERE p.stream_id = x.stream_id AND p.producer_id = x.producer_id AND x.stream_id IN (SELECT id FROM s)),
  p AS (INSERT INTO producers (stream_id, producer_id, epoch, last_seq, last_start, last_next, updated_at_ms)
    SELECT x.* FROM unnest($19::bigint[], $20::text[], $21::bigint[], $22::bigint[], $23::bigint[], $24::bigint[], $25::bigint[])
      AS x(stream_id, producer_id, epoch, last_seq, last_start, last_next, updated_at_ms)
    WHERE x.stream_id IN (SELECT id FROM s)
    ON CONFLICT (stream_id, producer_id) DO UPDATE SET epoch = EXCLUDED.epoch, last_seq = EXCLUDED.last_seq,
      last_start = EXCLUDED.last_start, last_next = EXCLUDED.last_next, updated_at_ms = EXCLUDED.updated_at_ms),
  n AS (SELECT pg_notify('${CHANNEL}', w) FROM unnest($26::text[]) AS w)
  SELECT coalesce((SELECT array_agg(id::text) FROM s), '{}') AS applied, (SELECT count(*) FROM n)::int AS notified`;

/**
 * The statement's parameters for `applies` (no stream twice), sending `wakeUps` (notify.ts) as
 * it commits. A wake-up for an append that did not apply costs its readers a read that finds
 * nothing new, and lets the payloads be built before the outcome is known. The messages travel
 * as one bytea with each one's place in it: as an array of bytea, Bun's client quoted every
 * byte of every message into a text literal.
 */
export function applyValues(applies: readonly AppendApply[], wakeUps: readonly string[]): unknown[] {
  const streams: unknown[][] = Array.from({ length: 9 }, () => []);
  const messages: number[][] = Array.from({ length: 6 }, () => []);
  const evicts: unknown[][] = [[], []];
  const producers: unknown[][] = Array.from({ length: 7 }, () => []);
  const { data, places, lengths } = packMessages(applies.flatMap((a) => a.data));
  let m = 0;
  for (const a of applies) {
    const s = a.next;
    streamValues(a).forEach((value, i) => streams[i]!.push(value));
    a.starts.forEach((start, i) => {
      [s.id, start, a.appendStarts[i]!, a.atMs, places[m]!, lengths[m]!].forEach((value, j) => messages[j]!.push(value));
      m++;
    });
    for (const id of a.evicts) (evicts[0]!.push(s.id), evicts[1]!.push(id));
    for (const [id, p] of a.producers) [s.id, id, ...producerValues(p)].forEach((value, i) => producers[i]!.push(value));
  }
  return [...streams, ...messages, data, ...evicts, ...producers, wakeUps];
}

/** The stream row an append leaves, in the statements' column order (id, version, tail, …). */
export function streamValues(a: AppendApply): unknown[] {
  const s = a.next;
  return [s.id, a.version, s.tail, s.messageCount, s.closed, s.closedBy === null ? null : JSON.stringify(s.closedBy), s.lastSeq, s.touchedAtMs, s.lastWriteAtMs];
}

/** A producer's row after the append, in the statements' column order (epoch, last_seq, …). */
export function producerValues(p: ProducerState): number[] {
  return [p.epoch, p.lastSeq, p.lastStart, p.lastNext, p.updatedAtMs];
}

/** Messages as one bytea, with each one's place in it and its length. */
export function packMessages(messages: readonly Uint8Array[]): { data: Uint8Array; places: number[]; lengths: number[] } {
  const places: number[] = [];
  const lengths: number[] = [];
  let bytes = 0;
  for (const m of messages) (places.push(bytes), lengths.push(m.length), (bytes += m.length));
  const data = new Uint8Array(bytes);
  messages.forEach((m, i) => data.set(m, places[i]!));
  return { data, places, lengths };
}

/** The ids of the streams the statement updated. */
export function appliedIds(rows: { applied: string[] }[]): Set<number> {
  return new Set((rows[0]?.applied ?? []).map(Number));
}
