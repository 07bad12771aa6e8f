// Buckets (spec §2.1–§2.4): created implicitly by a stream PUT or explicitly by PUT /{bucket}.

import { isProtocolError, protocolError } from "../protocol/errors";
import type { AppDeps } from "./deps";
import { renderError } from "./error-map";
import { parseBucketId } from "../protocol/paths";
import { bucketJson, streamSummaryJson } from "./listing-json";
import { empty, json } from "./respond";
import { Routes } from "./router";
import { streamPage } from "./stream-page";

export function bucketRoutes(deps: AppDeps): Routes {
  const app = new Routes("bucket");

  app.routes(
    new Routes("listing").get("/:bucket/streams", async (c) => {
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
    }),
  );

  app.resource("/:bucket", {
    family: "bucket",
    on: "a bucket",
    // Every method is told the ID is malformed (spec §2.1-§2.3), /favicon.ico included.
    target: (c) => {
      const bucket = parseBucketId(c.req.param("bucket"));
      return bucket.ok ? bucket.value : renderError(bucket.error);
    },
    methods: {
      GET: async (_c, bucket) => {
        const found = await deps.store.getBucket(bucket);
        if (!found) return renderError(protocolError("BUCKET_NOT_FOUND", "bucket not found"));
        return json(bucketJson(found));
      },
      PUT: async (_c, bucket) => {
        const outcome = await deps.store.putBucket(bucket);
        if (isProtocolError(outcome)) return renderError(outcome);
        return empty(outcome === "created" ? 201 : 200);
      },
      DELETE: async (_c, bucket) => {
        const outcome = await deps.store.deleteBucket(bucket);
        if (outcome === "missing") return renderError(protocolError("BUCKET_NOT_FOUND", "bucket not found"));
        if (outcome === "not_empty") return renderError(protocolError("BUCKET_NOT_EMPTY", "delete the bucket's streams first"));
        return empty(204);
      },
    },
  });

  return app;
}
