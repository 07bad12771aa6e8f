// Bucket and stream listings (spec §2.4), shared by `GET /{bucket}/streams` and the console's
// introspection API. A page walks the (bucket, name) index from its cursor and reads the listed
// fields from the rows it walks, and its counts are maintained ones (stream-counts.ts), so a page
// costs the same at the first position and the last, in a bucket of ten streams or of a million.
//
// A row is what has committed; readers see what is durable. The two differ only for a stream
// with a write committed but not yet durable, one whose row is behind its log rows, or one holding
// a TTL touch not yet written, and the stream cache always holds such a stream's durable state
// (stream-cache.ts): for those, and only those, the page shows the cached state. Every other row
// is what readers see, so it is not looked up: a lookup per row was a page's largest single cost
// (docs/design/stream-cache.md). Listing never loads a state into the cache, so walking a million streams
// leaves the recently used ones where they are.

import type { Database, Statement } from "bun:sqlite";
import { isExpired } from "../../protocol/lifetime";
import { streamKey, type StreamState } from "../../protocol/state";
import { summarize, type BucketSummary, type ListQuery, type Page, type StreamSummary } from "../store";
import { upperBound, type Count } from "../prefix-count";

interface SummaryRow {
  id: number;
  name: string;
  content_type: string;
  tail: number;
  closed: number;
  created_at_ms: number;
  last_write_at_ms: number | null;
  incarnation: string;
  ttl_s: number | null;
  expires_at_ms: number | null;
  touched_at_ms: number;
}

export interface ListingLookups {
  /** Whether the stream's row may differ from its durable state (see above). */
  rowMayDiffer(bucket: string, name: string, id: number): boolean;
  /** The cached durable state: a state, null when known absent, undefined when not cached. */
  peek(key: string): StreamState | null | undefined;
  /** The durable state, reclaiming it (and answering undefined) if it has expired. */
  get(key: string): StreamState | undefined;
  now(): number;
  /** Live streams in the bucket whose ID starts with the prefix. */
  count(bucket: string, prefix: string): Count;
}

export class Listing {
  private readonly streamPages = new Map<boolean, Statement<SummaryRow>>();
  private readonly bucketPages = new Map<boolean, Statement<{ bucket_id: string }>>();

  constructor(
    private readonly db: Database,
    private readonly lookups: ListingLookups,
  ) {}

  streams(bucket: string, query: ListQuery): Page<StreamSummary> {
    // Expired streams are left out (spec §2.4) and reclaimed. Rows are fetched a page (and one)
    // at a time until the page is full, so a run of expired streams cannot shorten a page or
    // hide that more follow.
    const items: StreamSummary[] = [];
    let low = query.after !== null && query.after >= query.prefix ? query.after : query.prefix;
    let inclusive = query.after === null || query.after < query.prefix;
    let hasMore = false;
    const now = this.lookups.now();
    for (;;) {
      const rows = this.streamPage(inclusive).all(bucket, low, upperBound(query.prefix), query.limit + 1);
      for (const row of rows) {
        const summary = this.summaryOf(bucket, row, now);
        if (!summary) continue;
        if (items.length === query.limit) {
          hasMore = true;
          break;
        }
        items.push(summary);
      }
      if (hasMore || rows.length <= query.limit) break;
      low = rows[rows.length - 1]!.name;
      inclusive = false;
    }
    const total = this.lookups.count(bucket, query.prefix);
    return { items, total: total.n, totalCapped: total.capped, hasMore, nextCursor: hasMore ? items[items.length - 1]!.name : null };
  }

  buckets(query: ListQuery, total: Count): Page<BucketSummary> {
    const low = query.after !== null && query.after >= query.prefix ? query.after : query.prefix;
    const inclusive = query.after === null || query.after < query.prefix;
    const rows = this.bucketPage(inclusive).all(low, upperBound(query.prefix), query.limit + 1);
    const hasMore = rows.length > query.limit;
    const items = rows.slice(0, query.limit).map(({ bucket_id }) => ({ bucket: bucket_id, streamCount: this.lookups.count(bucket_id, "").n }));
    return { items, total: total.n, totalCapped: total.capped, hasMore, nextCursor: hasMore ? items[items.length - 1]!.bucket : null };
  }

  /** The row's summary as readers see it, or null for a stream they do not. */
  private summaryOf(bucket: string, row: SummaryRow, now: number): StreamSummary | null {
    if (this.lookups.rowMayDiffer(bucket, row.name, row.id)) {
      const key = streamKey(bucket, row.name);
      // Such a stream is held in the cache (pinned); loading it is only the fallback.
      const peeked = this.lookups.peek(key);
      const cached = peeked === undefined ? this.lookups.get(key) : peeked;
      if (!cached || cached.softDeleted) return null;
      return isExpired(cached, now) ? (this.lookups.get(key), null) : summarize(cached);
    }
    // The row is the durable state, and its touch time the latest.
    if (isExpired({ ttlSeconds: row.ttl_s, expiresAtMs: row.expires_at_ms, touchedAtMs: row.touched_at_ms }, now)) {
      this.lookups.get(streamKey(bucket, row.name));
      return null;
    }
    return {
      name: row.name,
      closed: row.closed === 1,
      contentType: row.content_type,
      tail: row.tail,
      createdAtMs: row.created_at_ms,
      lastWriteAtMs: row.last_write_at_ms,
      incarnation: row.incarnation,
    };
  }

  private streamPage(inclusive: boolean): Statement<SummaryRow> {
    let st = this.streamPages.get(inclusive);
    if (!st) {
      st = this.db.prepare<SummaryRow, [string, string, string, number]>(
        `SELECT id, name, content_type, tail, closed, created_at_ms, last_write_at_ms, incarnation, ttl_s, expires_at_ms, touched_at_ms
         FROM streams WHERE bucket = ? AND name ${inclusive ? ">=" : ">"} ? AND name < ? AND soft_deleted = 0 ORDER BY name LIMIT ?`,
      );
      this.streamPages.set(inclusive, st);
    }
    return st;
  }

  private bucketPage(inclusive: boolean): Statement<{ bucket_id: string }> {
    let st = this.bucketPages.get(inclusive);
    if (!st) {
      st = this.db.prepare<{ bucket_id: string }, [string, string, number]>(
        `SELECT bucket_id FROM buckets WHERE bucket_id ${inclusive ? ">=" : ">"} ? AND bucket_id < ? ORDER BY bucket_id LIMIT ?`,
      );
      this.bucketPages.set(inclusive, st);
    }
    return st;
  }
}
