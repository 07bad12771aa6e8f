// Where a stream's messages start, how long each is and when its append committed: what the
// console's message viewer pages through, and how it seeks by time. Read-only, and O(page): one
// seek into `msg_index` (stream, start), plus the stream's log rows the index does not hold yet
// (written in the last ~100 ms, message-log.ts), which are few.
//
// Seeking by time bisects the byte range: `at_ms` never decreases along a stream because appends
// commit in order and each row carries its commit's clock reading, so the first message at or
// after a time is found in O(log tail) index seeks. A fork's messages below its fork offset are its
// source's rows (lineage.ts), paged through the same way; messages a fork copied from its source
// (the sub-offset's prefix, and every inherited one before schema version 7) carry no time (NULL):
// they all come before the fork's own, so they count as older than any time. A JSON row holds
// messages of one append (json-rows.ts), which share its time.

import type { Database, Statement } from "bun:sqlite";
import { isJsonType } from "../../protocol/content-type";
import type { StreamState } from "../../protocol/state";
import { messageEnd, messageStartAt } from "./json-rows";
import type { IndexPage, IndexPosition } from "../introspection";
import type { Segment } from "../lineage";
import { ROW_LENGTH } from "./schema";

interface MetaRow {
  offset: number;
  size: number;
  at_ms: number | null;
}

/** A log row: its bytes too when they may hold several messages (a JSON stream's). */
interface LogRow extends MetaRow {
  data: Uint8Array | null;
}

interface Queries {
  forward: Statement<LogRow>;
  backward: Statement<LogRow>;
  firstFrom: Statement<LogRow>;
  unindexed: Statement<LogRow>;
}

function queries(db: Database, data: "m.data" | "NULL"): Queries {
  const row = `i.start AS offset, ${ROW_LENGTH} AS size, m.at_ms AS at_ms, ${data} AS data FROM msg_index i JOIN msgs m ON m.id = i.msg_id`;
  // From the row holding `from` (a byte stream's append can be read from inside, a JSON row holds several messages).
  const holding = "i.stream_id = ?1 AND i.start >= coalesce((SELECT max(start) FROM msg_index WHERE stream_id = ?1 AND start <= ?2), 0)";
  return {
    forward: db.prepare(`SELECT ${row} WHERE ${holding} ORDER BY i.start LIMIT ?3`),
    backward: db.prepare(`SELECT ${row} WHERE i.stream_id = ? AND i.start < ? ORDER BY i.start DESC LIMIT ?`),
    firstFrom: db.prepare(`SELECT ${row} WHERE ${holding} ORDER BY i.start LIMIT 2`),
    unindexed: db.prepare(`SELECT start AS offset, length(data) AS size, at_ms, ${data === "NULL" ? "NULL" : "data"} AS data FROM msgs WHERE id > ? AND stream_id = ? ORDER BY id`),
  };
}

/** The messages of a row that end after byte `from`. */
function messagesOf(row: LogRow, from = 0): MetaRow[] {
  const { data } = row;
  if (data === null) return row.offset + row.size > from ? [row] : [];
  const out: MetaRow[] = [];
  for (let at = messageStartAt(data, from - row.offset); at < data.length; ) {
    const end = messageEnd(data, at);
    out.push({ offset: row.offset + at, size: end - at, at_ms: row.at_ms });
    at = end;
  }
  return out;
}

export class MessageIndex {
  private readonly bytes: Queries;
  private readonly json: Queries;
  private readonly indexedUpTo: Statement<{ value: string }>;

  constructor(
    db: Database,
    private readonly lineage: (state: StreamState) => Segment[],
  ) {
    this.bytes = queries(db, "NULL");
    this.json = queries(db, "m.data");
    this.indexedUpTo = db.prepare("SELECT value FROM meta WHERE key = 'indexed_upto'");
  }

  private q(state: StreamState): Queries {
    return isJsonType(state.contentType) ? this.json : this.bytes;
  }

  page(state: StreamState, at: IndexPosition, limit: number): IndexPage {
    const recent = this.recent(state);
    // Rows committed but not yet durable are in the table already; readers see only durable ones.
    const durable = (m: MetaRow) => m.offset < state.tail;
    let messages: MetaRow[];
    let edge: number;
    if ("before" in at) {
      edge = Math.min(at.before, state.tail);
      const mine = recent.filter((m) => m.offset < edge).slice(-limit);
      const below = mine[0]?.offset ?? edge;
      const older = mine.length < limit ? this.before(state, below, limit - mine.length) : [];
      messages = [...older, ...mine];
    } else {
      edge = Math.min("from" in at ? at.from : this.firstAt(state, at.atMs, recent), state.tail);
      const indexed = this.from(state, edge, limit).filter(durable);
      const past = indexed.length ? indexed[indexed.length - 1]!.offset : -1;
      messages = [...indexed, ...recent.filter((m) => m.offset > past)].filter((m) => m.offset + m.size > edge).slice(0, limit);
    }
    const first = messages[0];
    const last = messages[messages.length - 1];
    const streamStart = this.next(state, 0, recent)?.offset ?? state.tail;
    return {
      messages: messages.map((m) => ({ offset: m.offset, size: m.size, atMs: m.at_ms })),
      tail: state.tail,
      hasBefore: (first ? first.offset : edge) > streamStart,
      hasAfter: (last ? last.offset + last.size : edge) < state.tail,
    };
  }

  /** The first durable message starting at or after byte `x`. */
  private next(state: StreamState, x: number, recent: MetaRow[]): { offset: number; at_ms: number | null } | undefined {
    const m = this.firstIndexedFrom(state, x) ?? recent.find((r) => r.offset >= x);
    return m && m.offset < state.tail ? m : undefined;
  }

  /** The start of the first message appended at or after `atMs`, or the tail if there is none. */
  firstAt(state: StreamState, atMs: number, recent = this.recent(state)): number {
    // reached(x): the first message at or after byte x is at or after the time (or there is none).
    const reached = (x: number) => {
      const m = this.next(state, x, recent);
      return m === undefined || (m.at_ms ?? -Infinity) >= atMs;
    };
    let lo = 0;
    let hi = state.tail;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (reached(mid)) hi = mid;
      else lo = mid + 1;
    }
    return this.next(state, lo, recent)?.offset ?? state.tail;
  }

  /** Up to `limit` indexed messages from the one holding `from`, across the lineage. */
  private from(state: StreamState, from: number, limit: number): MetaRow[] {
    const out: MetaRow[] = [];
    for (const seg of this.lineage(state)) {
      if (seg.hi <= from || out.length >= limit) continue;
      const lo = Math.max(from, seg.lo);
      for (const row of this.q(state).forward.all(seg.id, lo, limit - out.length)) {
        for (const m of messagesOf(row, lo)) if (m.offset >= seg.lo && m.offset < seg.hi) out.push(m);
      }
    }
    return out.slice(0, limit);
  }

  /** Up to `limit` indexed messages before `before`, in offset order, across the lineage. */
  private before(state: StreamState, before: number, limit: number): MetaRow[] {
    let out: MetaRow[] = [];
    for (const seg of this.lineage(state).reverse()) {
      if (seg.lo >= before || out.length >= limit) continue;
      const edge = Math.min(before, seg.hi);
      const wanted = limit - out.length;
      let rows: MetaRow[] = [];
      for (const row of this.q(state).backward.all(seg.id, edge, wanted)) {
        rows = [...messagesOf(row).filter((m) => m.offset >= seg.lo && m.offset < edge), ...rows];
        if (rows.length >= wanted) break;
      }
      out = [...rows.slice(-wanted), ...out];
    }
    return out;
  }

  private firstIndexedFrom(state: StreamState, x: number): { offset: number; at_ms: number | null } | undefined {
    for (const seg of this.lineage(state)) {
      if (seg.hi <= x) continue;
      const lo = Math.max(x, seg.lo);
      const m = this.q(state)
        .firstFrom.all(seg.id, lo)
        .flatMap((row) => messagesOf(row, lo))
        .find((m) => m.offset >= lo);
      if (m && m.offset < seg.hi) return m;
    }
    return undefined;
  }

  /** The stream's durable messages whose rows `msg_index` does not hold yet, in offset order. */
  private recent(state: StreamState): MetaRow[] {
    const upTo = Number(this.indexedUpTo.get()?.value ?? 0);
    return this.q(state)
      .unindexed.all(upTo, state.id)
      .flatMap((row) => messagesOf(row))
      .filter((m) => m.offset < state.tail);
  }
}
