// What a request needs, read from its method and the shape of its path alone, so that routes
// added later under a shape are covered without being listed here:
//   GET and HEAD read; DELETE, retention and bucket PUT are admin; every other write is write.
//   /{bucket}…, /v1/stream/… (bucket _default) and /__ursula/api/{buckets|streams}/{bucket}…
//   name their bucket; other /__ursula/ routes are server-wide.
// The console, health and readiness need nothing; whoami checks a credential if one is given.
// The DS reserved API (…/__ds/…, DS §6–§7): the signing key is public; a webhook callback and a
// pull-wake ack or release carry the token the wake gave, which the handler checks, and nothing
// else; a claim reads; everything else there configures, and is admin. On /v1/stream/ a
// subscription may follow streams of any bucket, so its scope is server-wide.

import { DEFAULT_BUCKET, parseBucketId, parseStreamUrlPath, V1_PREFIX } from "../protocol/paths";
import { isSafeMethod } from "../protocol/methods";
import { ADMIN, READ, WRITE, type Scope } from "./scopes";

/** The 404 a request for a bucket the principal cannot see gets: the same as for a missing one. */
export type Concealment = "STREAM_NOT_FOUND" | "BUCKET_NOT_FOUND";

export type Access =
  | { kind: "open" }
  | { kind: "identify" }
  /** The scope on one bucket. */
  | { kind: "bucket"; scope: Scope; bucket: string; conceal: Concealment }
  /** The scope on at least one bucket: listings show only the principal's buckets. */
  | { kind: "any-bucket"; scope: Scope }
  /** The scope on every bucket: server-wide figures and actions. */
  | { kind: "server"; scope: Scope };

const OPEN_ACCESS: Access = { kind: "open" };
const IDENTIFY: Access = { kind: "identify" };
const ANY_BUCKET = { [READ]: { kind: "any-bucket", scope: READ }, [WRITE]: { kind: "any-bucket", scope: WRITE }, [ADMIN]: { kind: "any-bucket", scope: ADMIN } } as const;
const SERVER = { [READ]: { kind: "server", scope: READ }, [ADMIN]: { kind: "server", scope: ADMIN } } as const;
const V1_ROOT = V1_PREFIX.slice(0, -1);
const API = "/__ursula/api/";
const DS = "/__ds/";
const V1_DS = `${V1_PREFIX}__ds/`;

export function requiredAccess(method: string, raw: string): Access {
  if (raw === "/" || raw === "/ui" || raw.startsWith("/ui/")) return OPEN_ACCESS;
  if (raw.startsWith("/__ursula/")) return adminSurface(method, raw);
  if (raw.startsWith(V1_DS)) return reserved(raw.slice(V1_DS.length), null);
  if (raw === V1_ROOT || raw.startsWith(V1_PREFIX)) return v1Stream(method, raw.slice(V1_PREFIX.length));
  const second = raw.indexOf("/", 1);
  const bucket = validBucket(second < 0 ? raw.slice(1) : raw.slice(1, second));
  if (second > 0 && raw.startsWith(DS, second)) return reserved(raw.slice(second + DS.length), bucket);
  if (second < 0 || second === raw.length - 1) return scoped(bucket, isSafeMethod(method) ? READ : ADMIN, "BUCKET_NOT_FOUND");
  const third = raw.indexOf("/", second + 1);
  if (third < 0 && raw.slice(second + 1) === "streams" && isSafeMethod(method)) return scoped(bucket, READ, "BUCKET_NOT_FOUND");
  const sub = third < 0 ? "" : segment(raw, third + 1);
  return scoped(bucket, streamScope(method, sub), "STREAM_NOT_FOUND");
}

/**
 * A v1 stream: in `_default`, or, when the path is `{bucket}/{stream}` (--v1-bucket-paths), in
 * that bucket. Without the option such a path is refused as a stream ID; asking for the bucket it
 * would name costs nothing then.
 */
function v1Stream(method: string, rest: string): Access {
  const slash = rest.indexOf("/");
  const bucket = slash > 0 ? validBucket(rest.slice(0, slash)) : DEFAULT_BUCKET;
  return scoped(bucket, streamScope(method, ""), "STREAM_NOT_FOUND");
}

/** `…/__ds/{rest}`, under a bucket or (bucket null) on /v1/stream/. */
function reserved(rest: string, bucket: string | null): Access {
  if (rest === "jwks.json") return OPEN_ACCESS;
  const action = /^subscriptions\/[^/]+\/(callback|ack|release|claim)$/.exec(rest)?.[1];
  if (action !== undefined && action !== "claim") return OPEN_ACCESS;
  const scope = action === "claim" ? READ : ADMIN;
  return bucket === null ? SERVER[scope] : scoped(bucket, scope, "BUCKET_NOT_FOUND");
}

/** A stream or one of its sub-resources (spec §1.1 item 6). Retention discards data, as a delete does. */
function streamScope(method: string, sub: string): Scope {
  if (isSafeMethod(method)) return READ;
  if (method === "DELETE" || sub === "retention") return ADMIN;
  return WRITE;
}

function adminSurface(method: string, raw: string): Access {
  if (raw === "/__ursula/health" || raw === "/__ursula/ready") return OPEN_ACCESS;
  if (raw === `${API}whoami`) return IDENTIFY;
  const safe = isSafeMethod(method);
  if (!raw.startsWith(API)) return SERVER[safe ? READ : ADMIN];
  const scope = safe ? READ : ADMIN;
  for (const [prefix, conceal] of [
    ["buckets/", "BUCKET_NOT_FOUND"],
    ["streams/", "STREAM_NOT_FOUND"],
  ] as const) {
    if (raw.startsWith(prefix, API.length)) return scoped(validBucket(segment(raw, API.length + prefix.length)), scope, conceal);
  }
  return ANY_BUCKET[scope];
}

/**
 * A path whose bucket segment is not a valid bucket ID names nothing that can exist, so no bucket
 * limit applies; the scope still does, and the handler answers 400 or 404.
 */
function scoped(bucket: string | null, scope: Scope, conceal: Concealment): Access {
  return bucket === null ? ANY_BUCKET[scope] : { kind: "bucket", scope, bucket, conceal };
}

function segment(raw: string, from: number): string {
  const end = raw.indexOf("/", from);
  return end < 0 ? raw.slice(from) : raw.slice(from, end);
}

/** Decoded once, as the handlers decode it (spec §1.1). */
function validBucket(rawSegment: string): string | null {
  let decoded = rawSegment;
  if (rawSegment.includes("%")) {
    try {
      decoded = decodeURIComponent(rawSegment);
    } catch {
      return null;
    }
  }
  return parseBucketId(decoded).ok ? decoded : null;
}

/**
 * A fork reads its source (spec §7.4), which may sit in another bucket: creating one needs read on
 * the source's bucket too. Returns the source, or null when there is no fork or its header does not
 * parse (the handler then refuses it), parsed as the handler parses it. `forkedFrom` is the text of
 * the request's Stream-Forked-From header, or null when it has none.
 */
export function forkSource(method: string, access: Access, forkedFrom: string | null): { bucket: string; key: string } | null {
  if (method !== "PUT" || access.kind !== "bucket" || access.conceal !== "STREAM_NOT_FOUND") return null;
  if (forkedFrom === null) return null;
  const source = parseStreamUrlPath(forkedFrom.trim());
  return source.ok ? source.value : null;
}
