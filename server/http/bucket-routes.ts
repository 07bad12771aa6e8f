// Buckets (spec §2.1–§2.4): created implicitly by a stream PUT or explicitly by PUT /{bucket}.

import { isProtocolError, protocolError } from "../protocol/errors";
import type { AppDeps } from "./deps";
import { renderError } from "./error-map";
import { parseBucketId } from "../protocol/paths";
import { bucketJson, streamSummaryJson } from "./listing-json";
import { empty, json } from "./respond";
import { Routes } from "./router";
import { streamPage } from "./stream-page";

const BUCKET_METHODS = "GET, HEAD, PUT, DELETE, OPTIONS";

export function bucketRoutes(deps: AppDeps): Routes {
  const app = new Routes();

  app.get("/:bucket/streams", async (c) => {
    const result = await streamPage(deps, c.req.param("bucket"), new URL(c.req.url), 1000);
    if (isProtocolError(result)) return renderError(result);
    const { page } = result;
    return json({
      bucket_id: result.bucket,
      prefix: result.prefix,
      stream_count: page.items.length,
      streams: page.items.map(streamSummaryJson),
      next_cursor: page.nextCursor,
      has_more: page.hasMore,
    });
  });

  app.all("/:bucket", async (c) => {
    const bucket = parseBucketId(c.req.param("bucket"));
    // Every method is told the ID is malformed (spec §2.1-§2.3), /favicon.ico included.
    if (!bucket.ok) return renderError(bucket.error);
    switch (c.req.method) {
      case "PUT": {
        const outcome = await deps.store.putBucket(bucket.value);
        if (isProtocolError(outcome)) return renderError(outcome);
        return empty(outcome === "created" ? 201 : 200);
      }
      case "GET": {
        const found = await deps.store.getBucket(bucket.value);
        if (!found) return renderError(protocolError("BUCKET_NOT_FOUND", "bucket not found"));
        return json(bucketJson(found));
      }
      case "DELETE": {
        const outcome = await deps.store.deleteBucket(bucket.value);
        if (outcome === "missing") return renderError(protocolError("BUCKET_NOT_FOUND", "bucket not found"));
        if (outcome === "not_empty") return renderError(protocolError("BUCKET_NOT_EMPTY", "delete the bucket's streams first"));
        return empty(204);
      }
      default:
        return renderError(protocolError("METHOD_NOT_ALLOWED", `${c.req.method} is not allowed on a bucket`, { allow: BUCKET_METHODS }));
    }
  });

  return app;
}
