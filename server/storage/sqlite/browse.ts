// The console's stream list (introspection API): one bucket's streams sorted by a column and
// filtered, a page at a time. Each sort walks its own index on `streams` from a keyset cursor,
// so a page costs O(page) however many streams the bucket holds; filters beyond the name prefix
// are checked per stream while walking, within a scan budget, so no request does more than
// SCAN_BUDGET streams' worth of work.
//
// Staleness: rows come from the cache (what reads see), order from the table. The columns an
// append changes (tail, last write, last Stream-Seq) are written to the table up to about 100 ms
// late (message-log.ts), so for that long a page sorted by one of them can place a stream by its
// previous value, and a stream whose value changed between two pages can show on both or neither.

import type { Database, Statement } from "bun:sqlite";
import type { StreamFilters, StreamSortKey } from "../../introspection-api";
import { streamKey, type StreamState } from "../../protocol/state";
import { decodeCursor, encodeCursor, NULLABLE_SORT, type CursorRow } from "../browse-cursor";
import { SCAN_BUDGET, type BrowseItem, type BrowseQuery, type BrowseResult } from "../introspection";
import { upperBound, type Count } from "../prefix-count";

/**
 * A prefix matching at most this many streams is walked by name and those rows sorted (bounded
 * by this); a broader one is checked while walking the sort's index, like the other filters.
 */
export const NARROW_PREFIX = 1000;

export interface BrowseLookups {
  get(key: string): StreamState | undefined;
  producerCount(state: StreamState): number;
  now(): number;
  /** Live streams in the bucket whose ID starts with the prefix (stream-counts.ts). */
  count(bucket: string, prefix: string): Count;
}

type Row = CursorRow;

/** The column each sort walks; every one has an index on (bucket, column, name) (schema.ts). */
const COLUMN: Record<Exclude<StreamSortKey, "name">, string> = {
  created: "created_at_ms",
  tail: "tail",
  last_write: "last_write_at_ms",
  last_seq: "last_seq",
};


export class StreamBrowser {
  private readonly statements = new Map<string, Statement<Row>>();

  constructor(
    private readonly db: Database,
    private readonly lookups: BrowseLookups,
    private readonly narrowPrefix = NARROW_PREFIX,
  ) {}

  browse(bucket: string, q: BrowseQuery): BrowseResult {
    const after = q.after === null ? null : decodeCursor(q.sort, q.after);
    const total = this.lookups.count(bucket, q.prefix);
    const narrow = q.prefix !== "" && !total.capped && total.n <= this.narrowPrefix;
    const items: BrowseItem[] = [];
    const keys: Row[] = [];
    let scanned = 0;
    let last: Row | null = null;
    let exhausted = true;
    for (const row of this.walk(bucket, q, after, narrow)) {
      if (items.length > q.limit) {
        exhausted = false;
        break;
      }
      if (scanned >= SCAN_BUDGET) {
        exhausted = false;
        break;
      }
      scanned++;
      last = row;
      const state = this.lookups.get(streamKey(bucket, row.name));
      if (!state || state.softDeleted) continue;
      const producers = this.lookups.producerCount(state);
      if (!matches(state, producers, q)) continue;
      items.push({ state, producers });
      keys.push(row);
    }
    const filled = items.length > q.limit;
    const page = items.slice(0, q.limit);
    const partial = !filled && !exhausted;
    const cursorRow = filled ? keys[q.limit - 1]! : partial ? last : null;
    return {
      items: page,
      total: total.n,
      totalCapped: total.capped,
      nextCursor: cursorRow && encodeCursor(q.sort, cursorRow),
      hasMore: filled || partial,
      scanned,
      partial,
    };
  }

  /** The bucket's streams in the query's order, from just after the cursor. */
  private *walk(bucket: string, q: BrowseQuery, after: Row | null, narrow: boolean): Generator<Row> {
    const asc = q.order === "asc";
    if (q.sort === "name") {
      const low = after !== null && after.name >= q.prefix ? after.name : q.prefix;
      const inclusive = after === null || after.name < q.prefix;
      const high = upperBound(q.prefix);
      if (asc) {
        const sql = `SELECT name, name AS v FROM streams WHERE bucket = ? AND name ${inclusive ? ">=" : ">"} ? AND name < ? AND soft_deleted = 0 ORDER BY name`;
        yield* this.statement(sql).iterate(bucket, low, high);
      } else {
        const top = after !== null && after.name < high ? after.name : high;
        const sql = `SELECT name, name AS v FROM streams WHERE bucket = ? AND name >= ? AND name < ? AND soft_deleted = 0 ORDER BY name DESC`;
        yield* this.statement(sql).iterate(bucket, q.prefix, top);
      }
      return;
    }
    const column = COLUMN[q.sort];
    const nullable = NULLABLE_SORT[q.sort];
    // `+name` keeps SQLite from walking the name index instead and sorting what it finds there.
    const range = q.prefix === "" ? "" : narrow ? " AND name >= ? AND name < ?" : " AND +name >= ? AND +name < ?";
    const prefixArgs = q.prefix === "" ? [] : [q.prefix, upperBound(q.prefix)];
    const dir = asc ? "ASC" : "DESC";
    // NULLs sort first ascending and last descending, as SQLite orders them; each group is its
    // own index range, so neither needs an OR the planner could not walk.
    const nulls = (fromName: string | null) => {
      const cmp = fromName === null ? "" : asc ? " AND name > ?" : " AND name < ?";
      const sql = `SELECT name, NULL AS v FROM streams WHERE bucket = ? AND ${column} IS NULL${cmp}${range} AND soft_deleted = 0 ORDER BY name ${dir}`;
      return this.statement(sql).iterate(bucket, ...(fromName === null ? [] : [fromName]), ...prefixArgs);
    };
    const values = (from: Row | null) => {
      const cmp = from === null ? ` AND ${column} IS NOT NULL` : ` AND (${column}, name) ${asc ? ">" : "<"} (?, ?)`;
      const sql = `SELECT name, ${column} AS v FROM streams WHERE bucket = ?${cmp}${range} AND soft_deleted = 0 ORDER BY ${column} ${dir}, name ${dir}`;
      return this.statement(sql).iterate(bucket, ...(from === null ? [] : [from.v, from.name]), ...prefixArgs);
    };
    const inNulls = after !== null && after.v === null;
    if (asc) {
      if (nullable && (after === null || inNulls)) yield* nulls(inNulls ? after!.name : null);
      yield* values(inNulls ? null : after);
    } else {
      if (!inNulls) yield* values(after);
      if (nullable) yield* nulls(inNulls ? after!.name : null);
    }
  }

  private statement(sql: string): Statement<Row> {
    let st = this.statements.get(sql);
    if (!st) this.statements.set(sql, (st = this.db.prepare<Row, (string | number)[]>(sql)));
    return st;
  }
}

function matches(s: StreamState, producers: number, f: StreamFilters): boolean {
  if (f.status !== "any" && s.closed !== (f.status === "closed")) return false;
  if (f.producers !== "any" && producers > 0 !== (f.producers === "with")) return false;
  if (f.seq !== "any" && (s.lastSeq !== null) !== (f.seq === "set")) return false;
  if (f.contains !== "" && !s.name.toLowerCase().includes(f.contains.toLowerCase())) return false;
  return true;
}
