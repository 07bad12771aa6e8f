// Streams at /{bucket}/{stream} and at the compatibility surface /v1/stream/{name}, which maps
// to bucket `_default` (spec §1.4). Both dispatch to the same handlers.

import { Hono } from "hono";
import { protocolError } from "../protocol/errors";
import type { AppDeps } from "./deps";
import { renderError } from "./error-map";
import { DEFAULT_BUCKET, parseStreamPath, rawPathname, V1_PREFIX, type StreamPath } from "./paths";
import { headStream, readStream } from "./reads";
import { appendToStream, createStream, deleteStream } from "./writes";

const STREAM_METHODS = "GET, HEAD, POST, PUT, DELETE, OPTIONS";
const V1_ROOT = V1_PREFIX.slice(0, -1);

function dispatch(deps: AppDeps, req: Request, path: StreamPath): Promise<Response> | Response {
  switch (req.method) {
    case "PUT":
      return createStream(deps, req, path);
    case "POST":
      return appendToStream(deps, req, path);
    case "GET":
      return readStream(deps, req, path);
    // Hono answers HEAD through GET routes; the raw request still says HEAD, and HEAD must not
    // run the read path, which renews the TTL (spec §2.0).
    case "HEAD":
      return headStream(deps, req, path);
    case "DELETE":
      return deleteStream(deps, req, path);
    default:
      return renderError(protocolError("METHOD_NOT_ALLOWED", `${req.method} is not allowed on a stream`, { allow: STREAM_METHODS }));
  }
}

export function streamRoutes(deps: AppDeps): Hono {
  const app = new Hono();

  app.all("/:bucket/:stream", (c) => bucketedStream(deps, c.req.raw, rawPathname(c.req.url)));

  return app;
}

/** A stream request on either surface, before the router: every append and read comes this way. */
export function fastStream(deps: AppDeps, req: Request, raw: string): Promise<Response> | Response | undefined {
  // `/v1/stream` itself names the empty stream ID, which parseStreamPath refuses.
  if (raw.startsWith(V1_PREFIX) || raw === V1_ROOT) return v1Stream(deps, req, raw.slice(V1_PREFIX.length));
  return isBucketedStreamPath(raw) ? bucketedStream(deps, req, raw) : undefined;
}

function v1Stream(deps: AppDeps, req: Request, raw: string): Promise<Response> | Response {
  // The DS subscription prefix is reserved and not implemented (spec §2.23).
  if (raw === "__ds" || raw.startsWith("__ds/")) return renderError(protocolError("NOT_FOUND", "subscriptions are not supported"));
  return decodedStream(deps, req, DEFAULT_BUCKET, raw);
}

/**
 * Whether a raw path is `/{bucket}/{stream}` and nothing else could claim it (the console, the
 * admin API, a bucket listing, the v1 surface), so it may skip the router.
 */
export function isBucketedStreamPath(raw: string): boolean {
  const slash = raw.indexOf("/", 1);
  if (slash <= 1 || slash === raw.length - 1 || raw.indexOf("/", slash + 1) >= 0) return false;
  const first = raw.slice(1, slash);
  return first !== "ui" && first !== "v1" && !first.startsWith("__") && raw.slice(slash + 1) !== "streams";
}

function bucketedStream(deps: AppDeps, req: Request, raw: string): Promise<Response> | Response {
  const slash = raw.indexOf("/", 1);
  return decodedStream(deps, req, raw.slice(1, slash), raw.slice(slash + 1));
}

const decodeSegment = (raw: string) => (raw.includes("%") ? decodeURIComponent(raw) : raw);

/**
 * Decodes the raw path segments ourselves: Hono leaves malformed escapes such as %ZZ as they are,
 * and spec §1.1 wants each segment decoded once and then validated.
 */
function decodedStream(deps: AppDeps, req: Request, rawBucket: string, rawName: string): Promise<Response> | Response {
  let bucket: string;
  let name: string;
  try {
    bucket = decodeSegment(rawBucket);
    name = decodeSegment(rawName);
  } catch {
    return renderError(protocolError("INVALID_STREAM_ID", "path is not valid percent-encoding"));
  }
  const path = parseStreamPath(bucket, name);
  return path.ok ? dispatch(deps, req, path.value) : renderError(path.error);
}
