// Who reads a stream live, and how far behind its tail each reader is: the introspection API's
// answer to "who is lagging". The live hub (live/hub.ts) keeps each reader's place at no cost per
// wake; the messages a reader is behind are counted here, when asked, with one bounded index page
// per distinct offset listed. Bucket visibility is the gate's, as for every
// /__ursula/api/streams/{bucket}/… route (auth/access.ts): a token that may not read the bucket
// gets the 404 a missing stream gets.
//
// Also the order of the bucket list by live readers (`sort=readers`): the buckets with readers,
// most first, then the rest by ID, paged with one cursor across both parts.

import { protocolError, type ProtocolError } from "../protocol/errors";
import { formatOffset } from "../protocol/offsets";
import type { StreamState } from "../protocol/state";
import type { ReaderPage, ReaderRow } from "../introspection-api";
import type { LiveHub } from "../live/hub";
import type { BucketSummary, ListQuery, Page, Store } from "../storage/store";
import type { AppDeps } from "./deps";
import { renderError } from "./error-map";
import { parseLimit } from "./introspection-query";
import { parseStreamPath } from "../protocol/paths";
import { nextReadTurn } from "./read-turns";
import { json } from "./respond";
import { Routes } from "./router";

/** Messages counted behind one reader at most; past it the count is a lower bound. */
export const BEHIND_MESSAGES_CAP = 1000;

export function readerRoutes(deps: AppDeps, now: () => number = Date.now): Routes {
  const app = new Routes("admin");
  app.get("/api/streams/:bucket/:stream/readers", async (c) => {
    const state = await liveStream(deps.store, c.req.param("bucket"), c.req.param("stream"));
    if ("code" in state) return renderError(state);
    const limit = parseLimit(new URL(c.req.url).searchParams, 100, 1000);
    if (!limit.ok) return renderError(limit.error);
    return json(await readerPage(deps.store, deps.hub, state, limit.value, now(), c.req.raw.signal));
  });
  return app;
}

async function liveStream(store: Store, bucket: string, stream: string): Promise<StreamState | ProtocolError> {
  const path = parseStreamPath(bucket, stream);
  if (!path.ok) return path.error;
  const state = await store.get(path.value.key);
  return state && !state.softDeleted ? state : protocolError("STREAM_NOT_FOUND", "stream not found");
}

/**
 * Each reader's lag is an index page of up to BEHIND_MESSAGES_CAP rows: a scan of stored data, so
 * each takes a read turn, as a catch-up's steps do, and the counting stops (the rest answered as
 * a lower bound of 0, capped) once the client has gone.
 */
export async function readerPage(store: Store, hub: LiveHub, state: StreamState, limit: number, nowMs: number, signal?: AbortSignal): Promise<ReaderPage> {
  const all = hub.readers(state.id);
  const behind = (offset: number) => Math.max(0, state.tail - offset);
  all.sort((a, b) => behind(b.offset) - behind(a.offset) || a.startedAtMs - b.startedAtMs);
  const listed = all.slice(0, limit);
  const counted = new Map<number, { n: number; capped: boolean }>();
  for (const r of listed) {
    if (counted.has(r.offset)) continue;
    if (behind(r.offset) === 0) {
      counted.set(r.offset, { n: 0, capped: false });
      continue;
    }
    await nextReadTurn();
    counted.set(r.offset, signal?.aborted ? { n: 0, capped: true } : await messagesFrom(store, state, r.offset));
  }
  const readers = listed.map((r): ReaderRow => {
    const messages = counted.get(r.offset)!;
    return {
      kind: r.kind,
      address: r.client,
      offset: formatOffset(r.offset),
      offset_bytes: r.offset,
      started_at_ms: r.startedAtMs,
      since_ms: Math.max(0, nowMs - r.startedAtMs),
      behind_bytes: behind(r.offset),
      behind_messages: messages.n,
      behind_messages_capped: messages.capped,
    };
  });
  return { bucket_id: state.bucket, stream_id: state.name, tail_offset: state.tail, next_offset: formatOffset(state.tail), readers, total: all.length, truncated: all.length > listed.length };
}

/** Messages that end after `offset`, up to the tail, counted to BEHIND_MESSAGES_CAP. */
async function messagesFrom(store: Store, state: StreamState, offset: number): Promise<{ n: number; capped: boolean }> {
  const page = await store.introspection.messageIndex(state, { from: offset }, BEHIND_MESSAGES_CAP);
  return { n: page.messages.length, capped: page.hasAfter };
}

/**
 * A page of buckets, most live readers first, then by ID. `list` pages through the buckets the
 * request may see by ID (as the unsorted list does), `visible` says whether it may see one; the
 * buckets with readers come from the hub. The cursor is `r.{readers}.{bucket}` inside the first
 * part and `n.{bucket}` inside the second.
 */
export async function bucketsByReaders(
  store: Store,
  hub: LiveHub,
  q: ListQuery,
  list: (q: ListQuery) => Promise<Page<BucketSummary>>,
  visible: (bucket: string) => boolean,
): Promise<Page<BucketSummary> | ProtocolError> {
  const cursor = parseCursor(q.after);
  if (cursor === undefined) return protocolError("INVALID_QUERY", "after is not a cursor of a list sorted by readers");
  const ranked = hub
    .bucketsWithReaders()
    .filter(([b]) => b.startsWith(q.prefix) && visible(b))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const out: { row: BucketSummary; cursor: string }[] = [];
  if (cursor === null || cursor.part === "r") {
    const from = cursor === null ? 0 : ranked.findIndex(([b, n]) => n < cursor.readers || (n === cursor.readers && b > cursor.bucket));
    for (const [bucket, n] of from < 0 ? [] : ranked.slice(from)) {
      if (out.length > q.limit) break;
      const found = await store.getBucket(bucket);
      if (found) out.push({ row: { bucket, streamCount: found.streams }, cursor: `r.${n}.${bucket}` });
    }
  }
  const withReaders = new Set(ranked.map(([b]) => b));
  let after = cursor?.part === "n" ? cursor.bucket : null;
  let total = 0;
  let totalCapped = false;
  for (;;) {
    const page = await list({ prefix: q.prefix, after, limit: Math.max(1, Math.min(1000, q.limit + 1 - out.length + withReaders.size)) });
    total = page.total;
    totalCapped = page.totalCapped;
    for (const row of page.items) if (out.length <= q.limit && !withReaders.has(row.bucket)) out.push({ row, cursor: `n.${row.bucket}` });
    if (out.length > q.limit || !page.hasMore || page.nextCursor === null) break;
    after = page.nextCursor;
  }
  const hasMore = out.length > q.limit;
  const items = out.slice(0, q.limit);
  return { items: items.map((i) => i.row), total, totalCapped, hasMore, nextCursor: hasMore ? items[items.length - 1]!.cursor : null };
}

/** null: the first page; undefined: not a cursor of this order. */
function parseCursor(after: string | null): { part: "r"; readers: number; bucket: string } | { part: "n"; bucket: string } | null | undefined {
  if (after === null) return null;
  if (after.startsWith("n.") && after.length > 2) return { part: "n", bucket: after.slice(2) };
  const m = /^r\.([1-9][0-9]{0,9})\.(.+)$/.exec(after);
  return m ? { part: "r", readers: Number(m[1]), bucket: m[2]! } : undefined;
}
