// What a protocol path names (docs/api.md, "Paths and identifiers"): a bucket, a stream, or one of
// a stream's sub-resources, and which scope a request there needs (docs/security.md, "Scopes").
// Stream IDs are percent-encoded in paths, so a raw "/" always separates segments.
import type { Method } from "./types";

export const SUB_RESOURCES = ["append-batch", "attrs", "snapshot", "retention", "bootstrap"] as const;
export type SubResource = (typeof SUB_RESOURCES)[number];

export interface PathTarget {
  bucket: string;
  /** Decoded; null for a bucket path. */
  stream: string | null;
  /** The stream's own path (`/{bucket}/{stream}` or `/v1/stream/{name}`), or null. */
  streamPath: string | null;
  sub: SubResource | null;
  /** The segment after the sub-resource (a snapshot's or the floor's offset), still encoded. */
  arg: string | null;
}

function decode(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

/** Null when the path names no bucket (the console, /__ursula/…, the root). */
export function parsePath(requestPath: string): PathTarget | null {
  const path = requestPath.split("?")[0]!;
  const seg = path.split("/").slice(1);
  if (seg[0] === "v1" && seg[1] === "stream") {
    if (seg.length !== 3 || !seg[2]) return null;
    const stream = decode(seg[2]);
    return stream === null ? null : { bucket: "_default", stream, streamPath: `/v1/stream/${seg[2]}`, sub: null, arg: null };
  }
  if (!seg[0] || seg[0] === "ui" || seg[0].startsWith("__")) return null;
  const bucket = decode(seg[0]);
  if (bucket === null) return null;
  if (seg.length === 1 || (seg.length === 2 && seg[1] === "")) return { bucket, stream: null, streamPath: null, sub: null, arg: null };
  const stream = decode(seg[1]!);
  if (stream === null) return null;
  const streamPath = `/${seg[0]}/${seg[1]}`;
  const sub = (SUB_RESOURCES as readonly string[]).includes(seg[2] ?? "") ? (seg[2] as SubResource) : null;
  return { bucket, stream, streamPath, sub, arg: sub && seg.length > 3 ? seg.slice(3).join("/") : null };
}

/** The stream a request addresses (its sub-resources included), or the path as it is. */
export function streamPathOf(requestPath: string): string {
  return parsePath(requestPath)?.streamPath ?? requestPath.split("?")[0]!;
}

export type Scope = "read" | "write" | "admin";

/**
 * The scope a request needs, read from its method and path as the server reads it: GET and HEAD
 * read; DELETE, retention and a bucket PUT are admin; every other write is write.
 */
export function requiredScope(method: Method, requestPath: string): { scope: Scope; bucket: string | null } {
  const t = parsePath(requestPath);
  const bucket = t?.bucket ?? null;
  if (method === "GET" || method === "HEAD") return { scope: "read", bucket };
  if (method === "DELETE" || t?.sub === "retention" || (t !== null && t.stream === null)) return { scope: "admin", bucket };
  return { scope: "write", bucket };
}
