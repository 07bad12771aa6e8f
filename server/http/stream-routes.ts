// Streams at /{bucket}/{stream} and at the compatibility surface /v1/stream/{name}, which maps
// to bucket `_default` (spec §1.4). Both dispatch to the same handlers. A stream's sub-resources
// (`/attrs`, `/snapshot[/{offset}]`, `/retention[/{offset}]`, `/bootstrap`, `/append-batch`,
// spec §1.1) exist only on the bucketed surface, and take the same single entry.

import { protocolError } from "../protocol/errors";
import type { AppDeps } from "./deps";
import { renderError } from "./error-map";
import { DEFAULT_BUCKET, parseStreamPath, V1_PREFIX, type StreamPath } from "../protocol/paths";
import { headStream, readStream, type CredentialLeft } from "./reads";
import { Routes, type RouteContext } from "./router";
import { subResource, SUB_RESOURCES } from "./sub-resources";
import { appendToStream, createStream, deleteStream } from "./writes";

const STREAM_METHODS = "GET, HEAD, POST, PUT, DELETE, OPTIONS";

function dispatch(deps: AppDeps, credentialLeft: CredentialLeft, req: Request, path: StreamPath): Promise<Response> | Response {
  switch (req.method) {
    case "PUT":
      return createStream(deps, req, path);
    case "POST":
      return appendToStream(deps, req, path);
    case "GET":
      return readStream(deps, req, path, credentialLeft(req));
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

export function streamRoutes(deps: AppDeps, credentialLeft: CredentialLeft): Routes {
  const routes = new Routes();
  // `/v1/stream` itself names the empty stream ID, which parseStreamPath refuses.
  routes.all(V1_PREFIX.slice(0, -1), (c) => v1Stream(deps, credentialLeft, c.raw, ""));
  routes.all(`${V1_PREFIX}*`, (c) => v1Stream(deps, credentialLeft, c.raw, c.rest));
  routes.all("/:bucket/:stream", (c) => {
    const slash = c.path.indexOf("/", 1);
    return withPath(c.path.slice(1, slash), c.path.slice(slash + 1), (path) => dispatch(deps, credentialLeft, c.raw, path));
  });
  for (const [name, spec] of SUB_RESOURCES) {
    routes.all(`/:bucket/:stream/${name}`, (c) => bucketedSubResource(deps, c, name));
    if (spec.takesArgument) routes.all(`/:bucket/:stream/${name}/:arg`, (c) => bucketedSubResource(deps, c, name));
  }
  return routes;
}

/** `/{bucket}/{stream}/{sub}` or `/{bucket}/{stream}/{sub}/{arg}`, its segments still encoded. */
function bucketedSubResource(deps: AppDeps, c: RouteContext, sub: string): Promise<Response> | Response {
  const [rawBucket, rawName, , rawArg] = c.path.slice(1).split("/") as [string, string, string, string | undefined];
  const arg = rawArg === undefined ? null : decodeSegment(rawArg);
  if (arg === undefined) return badEscape();
  return withPath(rawBucket, rawName, (path) => subResource(deps, c.raw, path, sub, arg));
}

function v1Stream(deps: AppDeps, credentialLeft: CredentialLeft, req: Request, raw: string): Promise<Response> | Response {
  // The DS subscription prefix is reserved and not implemented (spec §2.23).
  if (raw === "__ds" || raw.startsWith("__ds/")) return renderError(protocolError("NOT_FOUND", "subscriptions are not supported"));
  return withPath(DEFAULT_BUCKET, raw, (path) => dispatch(deps, credentialLeft, req, path));
}

/**
 * Path segments are decoded here, once, and then validated (spec §1.1): a malformed escape such
 * as %ZZ is refused, not passed on as sent. undefined: malformed.
 */
function decodeSegment(raw: string): string | undefined {
  if (!raw.includes("%")) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

const badEscape = () => renderError(protocolError("INVALID_STREAM_ID", "path is not valid percent-encoding"));

function withPath(rawBucket: string, rawName: string, then: (path: StreamPath) => Promise<Response> | Response): Promise<Response> | Response {
  const bucket = decodeSegment(rawBucket);
  const name = decodeSegment(rawName);
  if (bucket === undefined || name === undefined) return badEscape();
  const path = parseStreamPath(bucket, name);
  return path.ok ? then(path.value) : renderError(path.error);
}
