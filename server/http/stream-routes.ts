// Streams at /{bucket}/{stream} and at the compatibility surface /v1/stream/{name}, which maps
// to bucket `_default` (spec §1.4). Both dispatch to the same handlers. A stream's sub-resources
// (`/attrs`, `/snapshot[/{offset}]`, `/retention[/{offset}]`, `/bootstrap`, `/append-batch`,
// spec §1.1) exist only on the bucketed surface, and take the same single entry.

import { Hono } from "hono";
import { protocolError } from "../protocol/errors";
import type { AppDeps } from "./deps";
import { renderError } from "./error-map";
import { DEFAULT_BUCKET, parseStreamPath, rawPathname, V1_PREFIX, type StreamPath } from "./paths";
import { headStream, readStream } from "./reads";
import { subResource, SUB_RESOURCES } from "./sub-resources";
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
  if (isBucketedStreamPath(raw)) return bucketedStream(deps, req, raw);
  return bucketedSubResource(deps, req, raw);
}

/**
 * `/{bucket}/{stream}/{sub}` or `/{bucket}/{stream}/{sub}/{arg}` for a known sub-resource, or
 * undefined for any other path (the router answers those, e.g. 404).
 */
function bucketedSubResource(deps: AppDeps, req: Request, raw: string): Promise<Response> | Response | undefined {
  const segments = raw.slice(1).split("/");
  if (segments.length < 3 || segments.length > 4 || segments.some((s) => s.length === 0)) return undefined;
  const [rawBucket, rawName, sub, rawArg] = segments as [string, string, string, string | undefined];
  if (rawBucket === "ui" || rawBucket === "v1" || rawBucket.startsWith("__")) return undefined;
  const spec = SUB_RESOURCES.get(sub);
  if (spec === undefined || (rawArg !== undefined && !spec.takesArgument)) return undefined;
  let bucket: string;
  let name: string;
  let arg: string | null;
  try {
    bucket = decodeSegment(rawBucket);
    name = decodeSegment(rawName);
    arg = rawArg === undefined ? null : decodeSegment(rawArg);
  } catch {
    return renderError(protocolError("INVALID_STREAM_ID", "path is not valid percent-encoding"));
  }
  const path = parseStreamPath(bucket, name);
  return path.ok ? subResource(deps, req, path.value, sub, arg) : renderError(path.error);
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
