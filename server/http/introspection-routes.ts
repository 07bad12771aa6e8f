// The console's introspection API under /__ursula/api. Bucket IDs may not start with `__`, so
// nothing here can collide with a bucket or stream. It reports what the public protocol does
// not: listings with counts, sorted and filtered; the last accepted Stream-Seq and the producer
// table; fork families; where messages start and when they were appended; message search.
// Read-only, and every answer is bounded by the page it returns (storage/introspection.ts).

import { isProtocolError, protocolError, type ProtocolError } from "../protocol/errors";
import { formatRfc3339 } from "../protocol/lifetime";
import { formatOffset } from "../protocol/offsets";
import { ADMIN, READ, scopeNames } from "../auth/scopes";
import type { Principal } from "../auth/principal";
import { visibleKey, type Visibility } from "../auth/visibility";
import { authorize } from "../auth/authorize";
import type { BucketPage, ReceivedWakes, ServerInfo, StreamDetail, StreamPage, SubscriptionList, WhoAmI } from "../introspection-api";
import { testReceiverPath } from "./subscriptions/test-receiver";
import { isJsonType } from "../protocol/content-type";
import { searchMessages } from "./message-search";
import type { ProducerLimits, ProducerState } from "../protocol/producer";
import { streamKey, type StreamState } from "../protocol/state";
import type { AppDeps } from "./deps";
import { renderError } from "./error-map";
import { pageAboveFloor } from "./retained-index";
import { parseBucketSort, parseIndexPosition, parseLimit, parseSearchQuery, parseBrowseQuery } from "./introspection-query";
import { bucketsByReaders } from "./reader-routes";
import { parseListQuery } from "./list-query";
import type { Gate } from "./security/gate";
import type { BucketSummary, ListQuery, Page } from "../storage/store";
import { parseBucketId, parseStreamPath, streamUrlPath } from "../protocol/paths";
import { forkTreeJson, messageIndexJson } from "./introspection-json";
import { bucketRowJson, streamListRowJson } from "./listing-json";
import { json } from "./respond";
import { nextReadTurn } from "./read-turns";
import { Routes } from "./router";

export function introspectionRoutes(deps: AppDeps, gate: Gate): Routes {
  const app = new Routes("admin");

  app.get("/api/whoami", (c) => {
    const p = gate.principal(c.req.raw);
    const anonymousReads = gate.mode === "none" || gate.publicRead;
    return json({
      auth: gate.mode,
      authenticated: p.kind === "token" || p.kind === "jwt",
      scopes: scopeNames(p.kind === "anonymous" && anonymousReads ? READ : p.scopes) as WhoAmI["scopes"],
      buckets: p.buckets === null ? null : [...p.buckets].sort(),
      public_read: anonymousReads,
    } satisfies WhoAmI);
  });

  app.get("/api/info", async (c) => {
    const v = gate.visibility(c.req.raw);
    return json({
      version: deps.info.version,
      // A path on the server's disk is for those who administer it (docs/security.md).
      data_path: administersServer(gate.principal(c.req.raw)) ? deps.info.dataPath : null,
      sync: deps.info.sync,
      started_at_ms: deps.info.startedAtMs,
      ...(v.all ? { live_readers: deps.hub.active, ...(await deps.store.counts()) } : await visibleCounts(deps, gate.principal(c.req.raw).buckets!)),
    } satisfies ServerInfo);
  });

  app.get("/api/buckets", async (c) => {
    const query = parseListQuery(new URL(c.req.url), 100);
    if (!query.ok) return renderError(query.error);
    const sort = parseBucketSort(new URL(c.req.url));
    if (!sort.ok) return renderError(sort.error);
    const v = gate.visibility(c.req.raw);
    const mine = gate.principal(c.req.raw).buckets;
    const list = (q: ListQuery) => (v.all ? deps.store.listBuckets(q) : visibleBuckets(deps, mine!, q));
    const page = sort.value === "readers" ? await bucketsByReaders(deps.store, deps.hub, query.value, list, v.sees) : await list(query.value);
    if (isProtocolError(page)) return renderError(page);
    const buckets = page.items.map((b) => bucketRowJson(b, deps.hub.readersIn(b.bucket)));
    return json({ buckets, sort: sort.value, total: page.total, total_capped: page.totalCapped, next_cursor: page.nextCursor, has_more: page.hasMore } satisfies BucketPage);
  });

  app.get("/api/buckets/:bucket/streams", async (c) => {
    const bucket = parseBucketId(c.req.param("bucket"));
    if (!bucket.ok) return renderError(bucket.error);
    const query = parseBrowseQuery(new URL(c.req.url));
    if (!query.ok) return renderError(query.error);
    if (!(await deps.store.hasBucket(bucket.value))) return renderError(protocolError("BUCKET_NOT_FOUND", "bucket not found"));
    const q = query.value;
    const v = gate.visibility(c.req.raw);
    // A page as large as a listing's takes a read turn like one (stream-page.ts).
    await nextReadTurn();
    const page = await deps.store.introspection.browseStreams(bucket.value, q);
    return json({
      bucket_id: bucket.value,
      prefix: q.prefix,
      total: page.total,
      total_capped: page.totalCapped,
      streams: page.items.map((item) => streamListRowJson(item, deps.hub.readersOf(item.state.id), v)),
      next_cursor: page.nextCursor,
      has_more: page.hasMore,
      sort: q.sort,
      order: q.order,
      scanned: page.scanned,
      partial: page.partial,
    } satisfies StreamPage);
  });

  // A bucket's subscriptions show their webhook URLs, which only the admin scope may read through
  // the reserved API (GET __ds/subscriptions/{id}): the same scope is asked for here, and for the
  // wakes the console's test receiver got.
  const subscriptionsOf = (c: { req: { raw: Request; param(name: string): string } }) => {
    const bucket = parseBucketId(c.req.param("bucket"));
    if (!bucket.ok) return bucket.error;
    const refused = authorize(gate.principal(c.req.raw), { kind: "bucket", scope: ADMIN, bucket: bucket.value, conceal: "BUCKET_NOT_FOUND" }, false);
    if (refused) return refused;
    if (!deps.subscriptions) return protocolError("NOT_FOUND", "subscriptions are not running on this server");
    return { bucket: bucket.value, service: deps.subscriptions };
  };

  app.get("/api/buckets/:bucket/subscriptions", async (c) => {
    const t = subscriptionsOf(c);
    if (isProtocolError(t)) return renderError(t);
    return json({ bucket_id: t.bucket, subscriptions: await t.service.list(t.bucket) } satisfies SubscriptionList);
  });

  app.get("/api/buckets/:bucket/test-receiver", (c) => {
    const t = subscriptionsOf(c);
    if (isProtocolError(t)) return renderError(t);
    return json({ bucket_id: t.bucket, path: testReceiverPath(t.bucket), wakes: t.service.testReceiver.list(t.bucket) } satisfies ReceivedWakes);
  });

  app.get("/api/streams/:bucket/:stream/forks", async (c) => {
    const state = await liveStream(c.req.param("bucket"), c.req.param("stream"));
    if (isProtocolError(state)) return renderError(state);
    return json(forkTreeJson(await deps.store.introspection.forkTree(state), urlPathOf, gate.visibility(c.req.raw)));
  });

  app.get("/api/streams/:bucket/:stream/messages", async (c) => {
    const state = await liveStream(c.req.param("bucket"), c.req.param("stream"));
    if (isProtocolError(state)) return renderError(state);
    const url = new URL(c.req.url);
    const at = parseIndexPosition(url);
    if (!at.ok) return renderError(at.error);
    const limit = parseLimit(url.searchParams, 200, 1000);
    if (!limit.ok) return renderError(limit.error);
    // A page of up to 1,000 index rows takes a read turn, as a listing page does.
    await nextReadTurn();
    const page = await pageAboveFloor((position, n) => deps.store.introspection.messageIndex(state, position, n), at.value, limit.value, state.retained);
    return json(messageIndexJson(page));
  });

  app.get("/api/streams/:bucket/:stream/search", async (c) => {
    const state = await liveStream(c.req.param("bucket"), c.req.param("stream"));
    if (isProtocolError(state)) return renderError(state);
    const query = parseSearchQuery(new URL(c.req.url));
    if (!query.ok) return renderError(query.error);
    // Below the floor nothing is readable any longer, though its rows may not be reclaimed yet (retained-index.ts).
    const q = { ...query.value, from: Math.max(query.value.from, state.retained) };
    if (q.from > state.tail || !(await deps.store.isMessageStart(state, q.from))) {
      return renderError(protocolError("INVALID_QUERY", "from must be where a message starts (a previous answer's scanned_to, or 0)"));
    }
    const isJson = isJsonType(state.contentType);
    if (q.field !== "" && !isJson) return renderError(protocolError("INVALID_QUERY", "field search needs an application/json stream"));
    return json(await searchMessages(deps.store, state, isJson, q, c.req.raw.signal));
  });

  app.get("/api/streams/:bucket/:stream", async (c) => {
    const path = parseStreamPath(c.req.param("bucket"), c.req.param("stream"));
    if (!path.ok) return renderError(path.error);
    const state = await deps.store.get(path.value.key);
    if (!state || state.softDeleted) return renderError(protocolError("STREAM_NOT_FOUND", "stream not found"));
    const [producers, attrs] = await Promise.all([deps.store.producers(state), deps.store.attrs(state)]);
    return json(describe(state, producers, deps.store.producerLimits, streamUrlPath(path.value), attrs, gate.visibility(c.req.raw)));
  });

  /** A stream that reads can address: not missing, expired or a deleted source. */
  async function liveStream(bucket: string, stream: string): Promise<StreamState | ProtocolError> {
    const path = parseStreamPath(bucket, stream);
    if (!path.ok) return path.error;
    const state = await deps.store.get(path.value.key);
    return state && !state.softDeleted ? state : protocolError("STREAM_NOT_FOUND", "stream not found");
  }

  return app;
}

function administersServer(p: Principal): boolean {
  return (p.scopes & ADMIN) !== 0 && p.buckets === null;
}

/** The server's figures over the buckets a token is limited to: it learns nothing of the others, not even their number. */
async function visibleCounts(deps: AppDeps, buckets: ReadonlySet<string>): Promise<Pick<ServerInfo, "live_readers" | "streams" | "buckets">> {
  let found = 0;
  let streams = 0;
  for (const id of buckets) {
    const bucket = await deps.store.getBucket(id);
    if (!bucket) continue;
    found++;
    streams += bucket.streams;
  }
  return { live_readers: [...buckets].reduce((n, b) => n + deps.hub.readersIn(b), 0), streams, buckets: found };
}

/** A page of the buckets a token is limited to: it learns nothing of the others, not even their number. */
async function visibleBuckets(deps: AppDeps, buckets: ReadonlySet<string>, q: ListQuery): Promise<Page<BucketSummary>> {
  const matching: BucketSummary[] = [];
  for (const id of [...buckets].sort()) {
    const found = id.startsWith(q.prefix) ? await deps.store.getBucket(id) : undefined;
    if (found) matching.push({ bucket: id, streamCount: found.streams });
  }
  const rows = q.after === null ? matching : matching.filter((r) => r.bucket > q.after!);
  const items = rows.slice(0, q.limit);
  const hasMore = rows.length > q.limit;
  return { items, total: matching.length, totalCapped: false, hasMore, nextCursor: hasMore ? items[items.length - 1]!.bucket : null };
}

const urlPathOf = (s: StreamState) => streamUrlPath({ bucket: s.bucket, name: s.name, key: streamKey(s.bucket, s.name) });

function describe(s: StreamState, producers: [string, ProducerState][], limits: ProducerLimits, urlPath: string, attrs: string | null, v: Visibility): StreamDetail {
  const expiresAtMs = s.expiresAtMs ?? (s.ttlSeconds === null ? null : s.touchedAtMs + s.ttlSeconds * 1000);
  return {
    bucket_id: s.bucket,
    stream_id: s.name,
    path: urlPath,
    content_type: s.contentType,
    tail_offset: s.tail,
    next_offset: formatOffset(s.tail),
    closed: s.closed,
    closed_by: s.closedBy && { producer_id: s.closedBy.id, epoch: s.closedBy.epoch, seq: s.closedBy.seq },
    incarnation: s.incarnation,
    last_stream_seq: s.lastSeq,
    ttl_seconds: s.ttlSeconds,
    expires_at: expiresAtMs === null ? null : formatRfc3339(expiresAtMs),
    expires_at_ms: expiresAtMs,
    created_at_ms: s.createdAtMs,
    last_write_at_ms: s.lastWriteAtMs,
    message_count: s.messageCount,
    producers: producers.map(([id, p]) => ({ producer_id: id, epoch: p.epoch, last_seq: p.lastSeq, updated_at_ms: p.updatedAtMs })),
    producer_limits: { idle_ttl_ms: limits.idleTtlMs, max_per_stream: limits.maxPerStream },
    fork: s.fork && { source: visibleKey(v, s.fork.sourceKey), offset: formatOffset(s.fork.offset), sub_offset: s.fork.subOffset },
    attrs: attrs === null ? null : JSON.parse(attrs),
    snapshot_offset: s.snapshot && formatOffset(s.snapshot.offset),
    retained_offset: formatOffset(s.retained),
    snapshot: s.snapshot && { offset: formatOffset(s.snapshot.offset), digest: s.snapshot.digest, content_type: s.snapshot.contentType, size: s.snapshot.size },
  };
}
