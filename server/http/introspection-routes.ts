// The console's introspection API under /__ursula/api. Bucket IDs may not start with `__`, so
// nothing here can collide with a bucket or stream. It reports what the public protocol does
// not: listings with counts, the last accepted Stream-Seq and the producer table.

import { Hono } from "hono";
import { isProtocolError, protocolError } from "../protocol/errors";
import { formatRfc3339 } from "../protocol/lifetime";
import { formatOffset } from "../protocol/offsets";
import type { BucketPage, ServerInfo, StreamDetail, StreamPage } from "../introspection-api";
import type { ProducerLimits, ProducerState } from "../protocol/producer";
import type { StreamState } from "../protocol/state";
import type { AppDeps } from "./deps";
import { renderError } from "./error-map";
import { parseListQuery } from "./list-query";
import { parseStreamPath, streamUrlPath } from "./paths";
import { json } from "./respond";
import { streamPage } from "./stream-page";

export function introspectionRoutes(deps: AppDeps): Hono {
  const app = new Hono();

  app.get("/health", () => json({ status: "ok" }));

  app.get("/api/info", () =>
    json({
      version: deps.info.version,
      data_path: deps.info.dataPath,
      sync: deps.info.sync,
      started_at_ms: deps.info.startedAtMs,
      live_readers: deps.hub.active,
      ...deps.store.counts(),
    } satisfies ServerInfo),
  );

  app.get("/api/buckets", (c) => {
    const query = parseListQuery(new URL(c.req.url), 100);
    if (!query.ok) return renderError(query.error);
    const page = deps.store.listBuckets(query.value);
    return json({ buckets: page.items, total: page.total, next_cursor: page.nextCursor, has_more: page.hasMore } satisfies BucketPage);
  });

  app.get("/api/buckets/:bucket/streams", (c) => {
    const result = streamPage(deps, c.req.param("bucket"), new URL(c.req.url), 100);
    if (isProtocolError(result)) return renderError(result);
    const { page } = result;
    return json({
      bucket_id: result.bucket,
      prefix: result.prefix,
      total: page.total,
      streams: page.items,
      next_cursor: page.nextCursor,
      has_more: page.hasMore,
    } satisfies StreamPage);
  });

  app.get("/api/streams/:bucket/:stream", (c) => {
    const path = parseStreamPath(c.req.param("bucket"), c.req.param("stream"));
    if (!path.ok) return renderError(path.error);
    const state = deps.store.get(path.value.key);
    if (!state || state.softDeleted) return renderError(protocolError("STREAM_NOT_FOUND", "stream not found"));
    return json(describe(state, deps.store.producers(state), deps.store.producerLimits, streamUrlPath(path.value), deps.store.attrs(state)));
  });

  return app;
}

function describe(s: StreamState, producers: [string, ProducerState][], limits: ProducerLimits, urlPath: string, attrs: string | null): StreamDetail {
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
    fork: s.fork && { source: s.fork.sourceKey, offset: formatOffset(s.fork.offset), sub_offset: s.fork.subOffset },
    attrs: attrs === null ? null : JSON.parse(attrs),
    snapshot_offset: s.snapshot && formatOffset(s.snapshot.offset),
    retained_offset: formatOffset(s.retained),
    snapshot: s.snapshot && { offset: formatOffset(s.snapshot.offset), digest: s.snapshot.digest, content_type: s.snapshot.contentType, size: s.snapshot.size },
  };
}
