// The console's introspection queries on PostgreSQL (storage/introspection.ts): the sorted and
// filtered stream list, fork families and the message index. Read-only and bounded by the page
// asked for; the filters are SQL, so PostgreSQL walks the (bucket, name) index and filters there.

import type { SQL } from "bun";
import type { ProducerLimits } from "../../protocol/producer";
import type { StreamState } from "../../protocol/state";
import { decodeCursor, encodeCursor } from "../browse-cursor";
import { forkFamily, type ForkFamily } from "../fork-tree";
import type { BrowseItem, BrowseQuery, BrowseResult, IndexedMessage, IndexPage, IndexPosition, Introspection } from "../introspection";
import { upperBound } from "../prefix-count";
import { segmentsOf } from "./lineage";
import type { Listings } from "./listings";
import { STREAM_COLUMNS, stateOf, TOUCHED, type StreamRow } from "./rows";

/** Each sort's key; nulls sort first ascending, as a sentinel below every stored value. */
const SORT_KEY = {
  name: { expr: "name", nullAs: null },
  created: { expr: "created_at_ms", nullAs: null },
  tail: { expr: "tail", nullAs: null },
  last_write: { expr: "COALESCE(last_write_at_ms, -1)", nullAs: -1 },
  last_seq: { expr: "COALESCE(last_seq, '')", nullAs: "" },
} as const;

/** The state field each sort's cursor carries. */
const FIELD = { name: "name", created: "createdAtMs", tail: "tail", last_write: "lastWriteAtMs", last_seq: "lastSeq" } as const;

interface MetaRow {
  start: string;
  size: number;
  at_ms: string | null;
}

export class PgIntrospection implements Introspection {
  constructor(
    private readonly sql: SQL,
    private readonly listings: Listings,
    private readonly now: () => number,
    private readonly limits: ProducerLimits,
    private readonly get: (key: string) => Promise<StreamState | undefined>,
  ) {}

  async browseStreams(bucket: string, q: BrowseQuery): Promise<BrowseResult> {
    const now = this.now();
    const params: unknown[] = [bucket, q.prefix, upperBound(q.prefix), now, now - this.limits.idleTtlMs];
    const where = [
      "bucket = $1",
      "NOT soft_deleted",
      "name >= $2",
      "name < $3",
      `NOT (CASE WHEN expires_at_ms IS NOT NULL THEN expires_at_ms <= $4 WHEN ttl_s IS NOT NULL THEN ${TOUCHED} + ttl_s * 1000 <= $4 ELSE false END)`,
    ];
    const producers = "(SELECT count(*) FROM producers p WHERE p.stream_id = streams.id AND p.updated_at_ms > $5)";
    if (q.status !== "any") where.push(q.status === "closed" ? "closed" : "NOT closed");
    if (q.seq !== "any") where.push(q.seq === "set" ? "last_seq IS NOT NULL" : "last_seq IS NULL");
    if (q.producers !== "any") where.push(`${producers} ${q.producers === "with" ? ">" : "="} 0`);
    if (q.contains !== "") {
      params.push(q.contains.toLowerCase());
      where.push(`strpos(lower(name), $${params.length}) > 0`);
    }
    const key = SORT_KEY[q.sort];
    const dir = q.order === "asc" ? "ASC" : "DESC";
    const after = q.after === null ? null : decodeCursor(q.sort, q.after);
    if (after) {
      params.push(after.v ?? key.nullAs, after.name);
      where.push(`(${key.expr}, name) ${q.order === "asc" ? ">" : "<"} ($${params.length - 1}, $${params.length})`);
    }
    params.push(q.limit + 1);
    const rows: (StreamRow & { producers: string })[] = await this.sql.unsafe(
      `SELECT ${STREAM_COLUMNS}, ${producers} AS producers FROM streams WHERE ${where.join(" AND ")}
       ORDER BY ${key.expr} ${dir}, name ${dir} LIMIT $${params.length}`,
      params,
    );
    const hasMore = rows.length > q.limit;
    const items: BrowseItem[] = rows.slice(0, q.limit).map((r) => ({ state: stateOf(r), producers: Number(r.producers) }));
    const last = items[items.length - 1]?.state;
    const total = await this.listings.count(bucket, q.prefix);
    const lastValue = last ? last[FIELD[q.sort]] : null;
    return {
      items,
      total: total.n,
      totalCapped: total.capped,
      hasMore,
      nextCursor: hasMore && last ? encodeCursor(q.sort, { name: last.name, v: lastValue ?? null }) : null,
      scanned: rows.length,
      partial: false,
    };
  }

  forkTree(state: StreamState): Promise<ForkFamily> {
    return forkFamily(state, {
      get: (key) => this.get(key),
      forksOf: async (sourceId, limit) => {
        const rows: StreamRow[] = await this.sql.unsafe(`SELECT ${STREAM_COLUMNS} FROM streams WHERE fork_source_id = $1 ORDER BY bucket, name LIMIT $2`, [sourceId, limit]);
        return rows.map((r) => stateOf(r));
      },
    });
  }

  async messageIndex(state: StreamState, at: IndexPosition, limit: number): Promise<IndexPage> {
    const segments = await segmentsOf(this.sql, state);
    const meta = (r: MetaRow): IndexedMessage => ({ offset: Number(r.start), size: Number(r.size), atMs: r.at_ms === null ? null : Number(r.at_ms) });
    let messages: IndexedMessage[] = [];
    let edge: number;
    if ("before" in at) {
      edge = Math.min(at.before, state.tail);
      for (const seg of [...segments].reverse()) {
        if (seg.lo >= edge || messages.length >= limit) continue;
        const rows: MetaRow[] = await this.sql`SELECT start, length(data) AS size, at_ms FROM msgs WHERE stream_id = ${seg.id}
          AND start >= ${seg.lo} AND start < ${Math.min(edge, seg.hi)} ORDER BY start DESC LIMIT ${limit - messages.length}`;
        messages = [...rows.reverse().map(meta), ...messages];
      }
    } else {
      edge = Math.min("from" in at ? at.from : await this.firstAt(segments, state, at.atMs), state.tail);
      for (const seg of segments) {
        if (seg.hi <= edge || messages.length >= limit) continue;
        const from = Math.max(edge, seg.lo);
        const rows: MetaRow[] = await this.sql`SELECT start, length(data) AS size, at_ms FROM msgs WHERE stream_id = ${seg.id}
          AND start >= COALESCE((SELECT max(start) FROM msgs WHERE stream_id = ${seg.id} AND start <= ${from}), 0)
          AND start < ${Math.min(seg.hi, state.tail)} ORDER BY start LIMIT ${limit - messages.length}`;
        for (const m of rows.map(meta)) if (m.offset >= seg.lo && m.offset + m.size > edge) messages.push(m);
      }
    }
    messages = messages.filter((m) => m.offset < state.tail).slice(0, limit);
    const first = messages[0];
    const lastMessage = messages[messages.length - 1];
    const streamStart = await this.firstFrom(segments, 0, state.tail);
    return {
      messages,
      tail: state.tail,
      hasBefore: (first ? first.offset : edge) > (streamStart ?? state.tail),
      hasAfter: (lastMessage ? lastMessage.offset + lastMessage.size : edge) < state.tail,
    };
  }

  /** The start of the first message at or after `offset`, across the lineage. */
  private async firstFrom(segments: { id: number; lo: number; hi: number }[], offset: number, tail: number): Promise<number | undefined> {
    for (const seg of segments) {
      if (seg.hi <= offset) continue;
      const [row]: { start: string }[] = await this.sql`SELECT start FROM msgs WHERE stream_id = ${seg.id} AND start >= ${Math.max(offset, seg.lo)} ORDER BY start LIMIT 1`;
      if (row && Number(row.start) < Math.min(seg.hi, tail)) return Number(row.start);
    }
    return undefined;
  }

  /**
   * The start of the first message appended at or after `atMs`, or the tail. Copied messages
   * (no time) count as older than any time. Instances' clocks may differ, so times are not
   * assumed to rise along the stream: the first message whose time has been reached is taken.
   */
  private async firstAt(segments: { id: number; lo: number; hi: number }[], state: StreamState, atMs: number): Promise<number> {
    for (const seg of segments) {
      const [row]: { start: string | null }[] = await this.sql`SELECT min(start) AS start FROM msgs WHERE stream_id = ${seg.id}
        AND start >= ${seg.lo} AND start < ${Math.min(seg.hi, state.tail)} AND at_ms >= ${atMs}`;
      if (row?.start !== null && row?.start !== undefined) return Number(row.start);
    }
    return state.tail;
  }
}
