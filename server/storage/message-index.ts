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
// they all come before the fork's own, so they count as older than any time.

import type { Database, Statement } from "bun:sqlite";
import type { StreamState } from "../protocol/state";
import type { Segment } from "./lineage";

export type IndexPosition = { from: number } | { before: number } | { atMs: number };

export interface IndexedMessage {
  /** Byte position where the message starts. */
  offset: number;
  size: number;
  /** When the append that wrote it committed; null for messages a fork inherited. */
  atMs: number | null;
}

/** A page of the index as the store knows it; http/introspection-json.ts renders it. */
export interface IndexPage {
  messages: IndexedMessage[];
  tail: number;
  /** More messages before the first one listed, and after the last. */
  hasBefore: boolean;
  hasAfter: boolean;
}

interface MetaRow {
  offset: number;
  size: number;
  at_ms: number | null;
}

export class MessageIndex {
  private readonly forward: Statement<MetaRow>;
  private readonly backward: Statement<MetaRow>;
  private readonly firstFrom: Statement<{ offset: number; at_ms: number | null }>;
  private readonly unindexed: Statement<MetaRow>;
  private readonly indexedUpTo: Statement<{ value: string }>;

  constructor(
    db: Database,
    private readonly lineage: (state: StreamState) => Segment[],
  ) {
    const row = "i.start AS offset, length(m.data) AS size, m.at_ms AS at_ms FROM msg_index i JOIN msgs m ON m.id = i.msg_id";
    // From the message holding `from` (a byte stream's append can be read from inside).
    this.forward = db.prepare(
      `SELECT ${row} WHERE i.stream_id = ?1 AND i.start >= coalesce((SELECT max(start) FROM msg_index WHERE stream_id = ?1 AND start <= ?2), 0)
       ORDER BY i.start LIMIT ?3`,
    );
    this.backward = db.prepare(`SELECT ${row} WHERE i.stream_id = ? AND i.start < ? ORDER BY i.start DESC LIMIT ?`);
    this.firstFrom = db.prepare(
      "SELECT i.start AS offset, m.at_ms AS at_ms FROM msg_index i JOIN msgs m ON m.id = i.msg_id WHERE i.stream_id = ? AND i.start >= ? ORDER BY i.start LIMIT 1",
    );
    this.unindexed = db.prepare("SELECT start AS offset, length(data) AS size, at_ms FROM msgs WHERE id > ? AND stream_id = ? ORDER BY id");
    this.indexedUpTo = db.prepare("SELECT value FROM meta WHERE key = 'indexed_upto'");
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
      for (const m of this.forward.all(seg.id, Math.max(from, seg.lo), limit - out.length)) if (m.offset >= seg.lo && m.offset < seg.hi) out.push(m);
    }
    return out;
  }

  /** Up to `limit` indexed messages before `before`, in offset order, across the lineage. */
  private before(state: StreamState, before: number, limit: number): MetaRow[] {
    let out: MetaRow[] = [];
    for (const seg of this.lineage(state).reverse()) {
      if (seg.lo >= before || out.length >= limit) continue;
      const rows = this.backward.all(seg.id, Math.min(before, seg.hi), limit - out.length).filter((m) => m.offset >= seg.lo);
      out = [...rows.reverse(), ...out];
    }
    return out;
  }

  private firstIndexedFrom(state: StreamState, x: number): { offset: number; at_ms: number | null } | undefined {
    for (const seg of this.lineage(state)) {
      if (seg.hi <= x) continue;
      const m = this.firstFrom.get(seg.id, Math.max(x, seg.lo));
      if (m && m.offset < seg.hi) return m;
    }
    return undefined;
  }

  /** The stream's durable log rows that `msg_index` does not hold yet, in offset order. */
  private recent(state: StreamState): MetaRow[] {
    const upTo = Number(this.indexedUpTo.get()?.value ?? 0);
    return this.unindexed.all(upTo, state.id).filter((m) => m.offset < state.tail);
  }
}
