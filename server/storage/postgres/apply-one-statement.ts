// The statement for a group of one append (apply-statement.ts applies any group). At light load
// most groups are one append, and for it the group statement's nine array scans and hash joins
// cost PostgreSQL about twice what the same effects cost with the stream's row as plain
// parameters: 260 against 122 µs of backend CPU per statement, the WAL flush aside
// (docs/design/pg-group-apply.md). The effects, the version check and the wake-up are the
// group statement's. An append that evicts a producer, or names more than one, takes that
// group statement.

import { packMessages, producerValues, streamValues, type AppendApply } from "./apply-statement";
import { CHANNEL } from "./notify";

export const APPLY_ONE = `WITH s AS (
    UPDATE streams t SET tail = $3::bigint, message_count = $4::bigint, closed = $5::boolean, closed_by = $6::text::jsonb,
      last_seq = $7::text, touched_at_ms = $8::bigint, last_write_at_ms = $9::bigint
    WHERE t.id = $1::bigint AND t.version = $2::bigint RETURNING t.id),
  m AS (INSERT INTO msgs (stream_id, start, append_start, at_ms, data)
    SELECT s.id, m.start, m.append_start, $10::bigint, substring($13::bytea FROM m.place + 1 FOR m.length)
    FROM s, unnest($11::bigint[], $12::bigint[], $14::int[], $15::int[]) AS m(start, append_start, place, length)),
  p AS (INSERT INTO producers (stream_id, producer_id, epoch, last_seq, last_start, last_next, updated_at_ms)
    SELECT s.id, $16::text, $17::bigint, $18::bigint, $19::bigint, $20::bigint, $21::bigint FROM s WHERE $16::text IS NOT NULL
    ON CONFLICT (stream_id, producer_id) DO UPDATE SET epoch = EXCLUDED.epoch, last_seq = EXCLUDED.last_seq,
      last_start = EXCLUDED.last_start, last_next = EXCLUDED.last_next, updated_at_ms = EXCLUDED.updated_at_ms),
  n AS (SELECT pg_notify('${CHANNEL}', $22::text) FROM s WHERE $22::text IS NOT NULL)
  SELECT coalesce((SELECT array_agg(id::text) FROM s), '{}') AS applied, (SELECT count(*) FROM n)::int AS notified`;

/** Whether APPLY_ONE can apply this group, sending these wake-ups. */
export function fitsOne(applies: readonly AppendApply[], wakeUps: readonly string[]): boolean {
  const [a] = applies;
  return applies.length === 1 && a!.evicts.length === 0 && a!.producers.length <= 1 && wakeUps.length <= 1;
}

/** APPLY_ONE's parameters for `a`, sending `wakeUp` as it commits. */
export function applyOneValues(a: AppendApply, wakeUp: string | undefined): unknown[] {
  const { data, places, lengths } = packMessages(a.data);
  const producer = a.producers[0];
  return [
    ...streamValues(a),
    a.atMs, a.starts, a.appendStarts, data, places, lengths,
    ...(producer ? [producer[0], ...producerValues(producer[1])] : [null, null, null, null, null, null]),
    wakeUp ?? null,
  ];
}
