// Reading a stream's bytes through its fork lineage (spec §7.4, storage/lineage.ts): a fork's
// rows hold what it appended itself; below its fork offset it reads its source's rows. Used by
// reads outside any transaction and by decisions inside one (the `sql` given decides which).

import type { SQL } from "bun";
import type { StreamState } from "../../protocol/state";
import type { Segment } from "../lineage";
import type { ReadSlice } from "../store";

type Query = Pick<SQL, "unsafe"> & (<T = unknown>(strings: TemplateStringsArray, ...values: unknown[]) => Promise<T>);

/** The segments of the state's bytes, lowest offsets first (as lineageOf, following row ids). */
export async function segmentsOf(sql: Query, state: StreamState): Promise<Segment[]> {
  const out: Segment[] = [];
  let hi = Infinity;
  let link = state.fork;
  let id = state.id;
  for (;;) {
    const lo = link ? Math.min(link.offset, hi) : 0;
    if (lo < hi) out.push({ id, lo, hi });
    if (!link || lo === 0) break;
    hi = lo;
    const rows: { fork_source_id: string | null; fork_offset: string | null; fork_source_key: string | null; fork_sub_offset: string | null }[] =
      await sql`SELECT fork_source_id, fork_offset, fork_source_key, fork_sub_offset FROM streams WHERE id = ${link.sourceId}`;
    id = link.sourceId;
    const row = rows[0];
    if (!row) break;
    link =
      row.fork_source_id === null
        ? null
        : { sourceId: Number(row.fork_source_id), offset: Number(row.fork_offset), sourceKey: row.fork_source_key!, subOffset: Number(row.fork_sub_offset) };
  }
  return out.reverse();
}

interface MsgRow {
  start: string;
  data: Uint8Array;
}

/** The rows of one segment that overlap [from, to), in order. */
async function rowsIn(sql: Query, seg: Segment, from: number, to: number): Promise<MsgRow[]> {
  const lo = Math.max(seg.lo, from);
  const hi = Math.min(seg.hi, to);
  if (lo >= hi) return [];
  return sql`SELECT start, data FROM msgs WHERE stream_id = ${seg.id}
    AND start >= COALESCE((SELECT start FROM msgs WHERE stream_id = ${seg.id} AND start <= ${lo} ORDER BY start DESC LIMIT 1), 0)
    AND start < ${hi} ORDER BY start`;
}

export async function readRange(sql: Query, state: StreamState, start: number, limitBytes: number, wholeMessages: boolean): Promise<ReadSlice> {
  if (start >= state.tail) return { chunks: [], end: start };
  const end = Math.min(state.tail, start + limitBytes);
  // Array mode always carries at least one whole message, however large (spec §4.2).
  const to = wholeMessages ? Math.max(end, start + 1) : end;
  const chunks: Uint8Array[] = [];
  let pos = start;
  for (const seg of await segmentsOf(sql, state)) {
    if (seg.hi <= pos) continue;
    for (const row of await rowsIn(sql, seg, pos, to)) {
      const rowStart = Number(row.start);
      const data = new Uint8Array(row.data);
      if (rowStart + data.length <= pos) continue;
      // Rows can be missing only if the stream was deleted since its state was read: the slice
      // ends where its bytes do, so a reader never skips bytes it was not sent.
      if (rowStart > pos) return { chunks, end: pos };
      if (wholeMessages) {
        if (chunks.length > 0 && rowStart + data.length > end) return { chunks, end: pos };
        chunks.push(data);
        pos = rowStart + data.length;
        continue;
      }
      const cut = Math.min(end, rowStart + data.length) - rowStart;
      chunks.push(pos === rowStart && cut === data.length ? data : data.subarray(pos - rowStart, cut));
      pos = rowStart + cut;
    }
    if (pos >= to) break;
  }
  return { chunks, end: pos };
}

/** Whether a message of the state starts at `offset`, or it is the tail. */
export async function isMessageStart(sql: Query, state: StreamState, offset: number): Promise<boolean> {
  if (offset === state.tail) return true;
  if (offset > state.tail || offset < 0) return false;
  const seg = (await segmentsOf(sql, state)).find((s) => offset >= s.lo && offset < s.hi);
  if (!seg) return false;
  const rows: unknown[] = await sql`SELECT 1 FROM msgs WHERE stream_id = ${seg.id} AND start = ${offset}`;
  return rows.length > 0;
}

/**
 * Lengths of the messages of the append that starts at `offset` ([] at the tail), or null when
 * no append starts there: what the fork decision needs of its source (protocol/create.ts).
 */
export async function appendAt(sql: Query, state: StreamState, offset: number): Promise<number[] | null> {
  if (offset === state.tail) return [];
  const seg = (await segmentsOf(sql, state)).find((s) => offset >= s.lo && offset < s.hi);
  if (!seg) return null;
  const rows: { n: number }[] = await sql`SELECT length(data) AS n FROM msgs WHERE stream_id = ${seg.id} AND append_start = ${offset} AND start >= ${offset} AND start < ${Math.min(seg.hi, Number.MAX_SAFE_INTEGER)} ORDER BY start`;
  return rows.length === 0 ? null : rows.map((r) => Number(r.n));
}

/** How many messages the state's lineage holds below `offset`. */
export async function messagesBelow(sql: Query, state: StreamState, offset: number): Promise<number> {
  let n = 0;
  for (const seg of await segmentsOf(sql, state)) {
    if (seg.lo >= offset) break;
    const [row]: { n: string }[] = await sql`SELECT count(*) AS n FROM msgs WHERE stream_id = ${seg.id} AND start >= ${seg.lo} AND start < ${Math.min(seg.hi, offset)}`;
    n += Number(row!.n);
  }
  return n;
}
