// Bucket and stream listings (spec §2.4), shared by `GET /{bucket}/streams` and the console's
// introspection API. Both walk the (bucket, name) index, so a page costs the same with 100,000
// streams as with ten.

import type { Database } from "bun:sqlite";
import { formatOffset } from "../protocol/offsets";
import { streamKey, type StreamState } from "../protocol/state";
import type { StreamSummary } from "../introspection-api";
import type { ListQuery, Page } from "./store";

// Every name that starts with the prefix sorts below prefix + U+10FFFF, bytewise in UTF-8.
const upperBound = (prefix: string) => (prefix === "" ? "\u{10FFFF}\u{10FFFF}" : prefix + "\u{10FFFF}");

export function listStreams(
  db: Database,
  get: (key: string) => StreamState | undefined,
  bucket: string,
  query: ListQuery,
): Page<StreamSummary> {
  const low = query.after !== null && query.after >= query.prefix ? query.after : query.prefix;
  const inclusive = query.after === null || query.after < query.prefix;
  const names = db
    .query<{ name: string }, [string, string, string, number]>(
      `SELECT name FROM streams WHERE bucket = ? AND name ${inclusive ? ">=" : ">"} ? AND name < ? AND soft_deleted = 0 ORDER BY name LIMIT ?`,
    )
    .all(bucket, low, upperBound(query.prefix), query.limit + 1);
  const total = countStreams(db, bucket, query.prefix);
  const hasMore = names.length > query.limit;
  const page = names.slice(0, query.limit);
  const items: StreamSummary[] = [];
  for (const { name } of page) {
    const s = get(streamKey(bucket, name));
    if (s) items.push(summarize(s));
  }
  return { items, total, hasMore, nextCursor: hasMore ? page[page.length - 1]!.name : null };
}

/** Streams in the bucket whose ID starts with `prefix` (soft-deleted sources excluded). */
export function countStreams(db: Database, bucket: string, prefix: string): number {
  return db
    .query<{ n: number }, [string, string, string]>(
      "SELECT count(*) AS n FROM streams WHERE bucket = ? AND name >= ? AND name < ? AND soft_deleted = 0",
    )
    .get(bucket, prefix, upperBound(prefix))!.n;
}

export function listBuckets(db: Database, query: ListQuery): Page<{ bucket_id: string; stream_count: number }> {
  const low = query.after !== null && query.after >= query.prefix ? query.after : query.prefix;
  const inclusive = query.after === null || query.after < query.prefix;
  const rows = db
    .query<{ bucket_id: string; stream_count: number }, [string, string, number]>(
      `SELECT b.bucket_id, (SELECT count(*) FROM streams s WHERE s.bucket = b.bucket_id AND s.soft_deleted = 0) AS stream_count
       FROM buckets b WHERE b.bucket_id ${inclusive ? ">=" : ">"} ? AND b.bucket_id < ? ORDER BY b.bucket_id LIMIT ?`,
    )
    .all(low, upperBound(query.prefix), query.limit + 1);
  const total = db
    .query<{ n: number }, [string, string]>("SELECT count(*) AS n FROM buckets WHERE bucket_id >= ? AND bucket_id < ?")
    .get(query.prefix, upperBound(query.prefix))!.n;
  const hasMore = rows.length > query.limit;
  const items = rows.slice(0, query.limit);
  return { items, total, hasMore, nextCursor: hasMore ? items[items.length - 1]!.bucket_id : null };
}

export function summarize(s: StreamState): StreamSummary {
  return {
    stream_id: s.name,
    status: s.closed ? "Closed" : "Open",
    content_type: s.contentType,
    tail_offset: s.tail,
    next_offset: formatOffset(s.tail),
    created_at_ms: s.createdAtMs,
    last_write_at_ms: s.lastWriteAtMs,
    incarnation: s.incarnation,
  };
}
