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
  nowMs: number,
): Page<StreamSummary> {
  // Expired streams are left out (spec §2.4): `get` reaps them. Names are fetched a page (and
  // one) at a time until the page is full, so a run of expired streams cannot shorten a page or
  // hide that more follow.
  const items: StreamSummary[] = [];
  let low = query.after !== null && query.after >= query.prefix ? query.after : query.prefix;
  let inclusive = query.after === null || query.after < query.prefix;
  let hasMore = false;
  for (;;) {
    const names = db
      .query<{ name: string }, [string, string, string, number]>(
        `SELECT name FROM streams WHERE bucket = ? AND name ${inclusive ? ">=" : ">"} ? AND name < ? AND soft_deleted = 0 ORDER BY name LIMIT ?`,
      )
      .all(bucket, low, upperBound(query.prefix), query.limit + 1);
    for (const { name } of names) {
      const s = get(streamKey(bucket, name));
      if (!s) continue;
      if (items.length === query.limit) {
        hasMore = true;
        break;
      }
      items.push(summarize(s));
    }
    if (hasMore || names.length <= query.limit) break;
    low = names[names.length - 1]!.name;
    inclusive = false;
  }
  const total = countStreams(db, bucket, query.prefix, get, nowMs);
  return { items, total, hasMore, nextCursor: hasMore ? items[items.length - 1]!.stream_id : null };
}

/**
 * Live streams in the bucket whose ID starts with `prefix`: soft-deleted sources and expired
 * streams excluded. Only a stream whose stored row says it may have expired is looked at (the
 * stored touch time is never later than the one in memory, so the row errs on the side of
 * "may have expired"); `get` then says whether it has.
 */
export function countStreams(db: Database, bucket: string, prefix: string, get: (key: string) => StreamState | undefined, nowMs: number): number {
  const range = [bucket, prefix, upperBound(prefix)] as const;
  const all = db
    .query<{ n: number }, [string, string, string]>("SELECT count(*) AS n FROM streams WHERE bucket = ? AND name >= ? AND name < ? AND soft_deleted = 0")
    .get(...range)!.n;
  const mayHaveExpired = db
    .query<{ name: string }, [string, string, string, number]>(
      `SELECT name FROM streams WHERE bucket = ? AND name >= ? AND name < ? AND soft_deleted = 0
       AND (expires_at_ms <= ?4 OR touched_at_ms + ttl_s * 1000 <= ?4)`,
    )
    .all(...range, nowMs);
  let expired = 0;
  for (const { name } of mayHaveExpired) if (get(streamKey(bucket, name)) === undefined) expired++;
  return all - expired;
}

/** Each bucket with its live streams, counted as GET /{bucket} counts them (expired ones left out). */
export function listBuckets(
  db: Database,
  get: (key: string) => StreamState | undefined,
  query: ListQuery,
  nowMs: number,
): Page<{ bucket_id: string; stream_count: number }> {
  const low = query.after !== null && query.after >= query.prefix ? query.after : query.prefix;
  const inclusive = query.after === null || query.after < query.prefix;
  const rows = db
    .query<{ bucket_id: string }, [string, string, number]>(
      `SELECT bucket_id FROM buckets WHERE bucket_id ${inclusive ? ">=" : ">"} ? AND bucket_id < ? ORDER BY bucket_id LIMIT ?`,
    )
    .all(low, upperBound(query.prefix), query.limit + 1)
    .map(({ bucket_id }) => ({ bucket_id, stream_count: countStreams(db, bucket_id, "", get, nowMs) }));
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
