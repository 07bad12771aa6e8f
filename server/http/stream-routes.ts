// Streams at /{bucket}/{stream} and at the compatibility surface /v1/stream/{name}, which maps
// to bucket `_default` (spec §1.4), and, with --v1-bucket-paths, /v1/stream/{bucket}/{stream}. Both dispatch to the same handlers. A stream's sub-resources
// (`/attrs`, `/snapshot[/{offset}]`, `/retention[/{offset}]`, `/bootstrap`, `/append-batch`,
// spec §1.1) exist only on the bucketed surface, and take the same single entry.

import type { RouteFamily } from "../ops/server-metrics";
import { protocolError } from "../protocol/errors";
import type { AppDeps } from "./deps";
import { renderError } from "./error-map";
import { DEFAULT_BUCKET, parseStreamPath, V1_PREFIX, type StreamPath } from "../protocol/paths";
import { headStream, readStream, type CredentialLeft } from "./reads";
import { Routes, type Resource, type RouteContext } from "./router";
import { SUB_RESOURCES, type SubResourceMethods } from "./sub-resources";
import { appendToStream, createStream, deleteStream } from "./writes";

export function streamRoutes(deps: AppDeps, credentialLeft: CredentialLeft): Routes {
  const routes = new Routes("stream");
  const methods: Resource<StreamPath>["methods"] = {
    GET: (c, path) => readStream(deps, c.raw, path, credentialLeft(c.raw)),
    // HEAD must not run the read path, which renews the TTL (spec §2.0).
    HEAD: (c, path) => headStream(deps, c.raw, path),
    POST: (c, path) => appendToStream(deps, c.raw, path),
    PUT: (c, path) => createStream(deps, c.raw, path),
    DELETE: (c, path) => deleteStream(deps, c.raw, path),
  };
  // `/v1/stream` itself names the empty stream ID, which parseStreamPath refuses.
  routes.resource(V1_PREFIX.slice(0, -1), { family: "stream", on: "a stream", target: () => streamPath(DEFAULT_BUCKET, ""), methods });
  routes.resource(`${V1_PREFIX}*`, { family: "stream", on: "a stream", target: (c) => v1Path(c.rest, deps.v1BucketPaths === true), methods });
  routes.resource("/:bucket/:stream", {
    family: "stream",
    on: "a stream",
    target: (c) => {
      const slash = c.path.indexOf("/", 1);
      return streamPath(c.path.slice(1, slash), c.path.slice(slash + 1));
    },
    methods,
  });
  for (const [name, spec] of SUB_RESOURCES) {
    routes.resource(`/:bucket/:stream/${name}`, subResource(deps, name, spec.family, spec.bare, null));
    if (spec.withArgument) routes.resource(`/:bucket/:stream/${name}/:arg`, subResource(deps, name, spec.family, spec.withArgument, "/{offset}"));
  }
  return routes;
}

interface SubTarget {
  path: StreamPath;
  arg: string | null;
}

function subResource(deps: AppDeps, name: string, family: RouteFamily, handlers: SubResourceMethods, argument: string | null): Resource<SubTarget> {
  const methods: Resource<SubTarget>["methods"] = {};
  for (const [method, handle] of Object.entries(handlers)) methods[method] = (c, t) => handle!(deps, c.raw, t.path, t.arg, c.head);
  return { family, on: `…/${name}${argument ?? ""}`, target: subTarget, methods };
}

/** `/{bucket}/{stream}/{sub}` or `/{bucket}/{stream}/{sub}/{arg}`, its segments still encoded. */
function subTarget(c: RouteContext): SubTarget | Response {
  const [rawBucket, rawName, , rawArg] = c.path.slice(1).split("/") as [string, string, string, string | undefined];
  const arg = rawArg === undefined ? null : decodeSegment(rawArg);
  if (arg === undefined) return badEscape();
  const path = streamPath(rawBucket, rawName);
  return path instanceof Response ? path : { path, arg };
}

function v1Path(raw: string, bucketPaths: boolean): StreamPath | Response {
  // The DS reserved prefix: its routes (subscription-routes.ts) are rows of their own.
  if (raw === "__ds" || raw.startsWith("__ds/")) return renderError(protocolError("NOT_FOUND", "no such reserved DS route"));
  const slash = raw.indexOf("/");
  if (bucketPaths && slash > 0) return streamPath(raw.slice(0, slash), raw.slice(slash + 1));
  return streamPath(DEFAULT_BUCKET, raw);
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

function streamPath(rawBucket: string, rawName: string): StreamPath | Response {
  const bucket = decodeSegment(rawBucket);
  const name = decodeSegment(rawName);
  if (bucket === undefined || name === undefined) return badEscape();
  const path = parseStreamPath(bucket, name);
  return path.ok ? path.value : renderError(path.error);
}
