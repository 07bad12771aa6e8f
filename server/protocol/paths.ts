// Bucket and stream identifiers (spec §1.2–§1.4).

import { fail, ok, type Parsed } from "./errors";
import { streamKey } from "./state";

const BUCKET = /^[a-z0-9_-]{4,64}$/;
const MAX_STREAM_ID_BYTES = 122;
export const DEFAULT_BUCKET = "_default";
export const V1_PREFIX = "/v1/stream/";

export interface StreamPath {
  bucket: string;
  name: string;
  key: string;
}

/** The URL path clients use for a stream, for Location and the console. */
export function streamUrlPath(path: StreamPath): string {
  const name = encodeURIComponent(path.name);
  return path.bucket === DEFAULT_BUCKET ? V1_PREFIX + name : `/${path.bucket}/${name}`;
}

export function parseBucketId(bucket: string): Parsed<string> {
  if (!BUCKET.test(bucket) || bucket.startsWith("__")) {
    return fail("INVALID_BUCKET_ID", "bucket IDs are 4-64 characters of a-z, 0-9, _ and -, and may not start with __");
  }
  return ok(bucket);
}

export function parseStreamPath(bucket: string, name: string): Parsed<StreamPath> {
  const b = parseBucketId(bucket);
  if (!b.ok) return b;
  const bytes = Buffer.byteLength(name, "utf8");
  if (name.length === 0 || bytes > MAX_STREAM_ID_BYTES) return fail("INVALID_STREAM_ID", "stream IDs are 1-122 bytes");
  if (name.includes("/") || name.includes("\0") || name.includes("..")) {
    return fail("INVALID_STREAM_ID", "stream IDs may not contain /, NUL or ..");
  }
  if (name === "streams" && bucket !== DEFAULT_BUCKET) return fail("INVALID_STREAM_ID", "`streams` is reserved for the bucket listing");
  if (bucket.length + 1 + bytes > MAX_STREAM_ID_BYTES) {
    return fail("INVALID_STREAM_ID", "bucket and stream ID together are longer than 122 bytes");
  }
  return ok({ bucket, name, key: streamKey(bucket, name) });
}

/** `/v1/stream/{name}` and `/{bucket}/{stream}`, as `Stream-Forked-From` may name them. */
export function parseStreamUrlPath(path: string): Parsed<StreamPath> {
  let segments: string[];
  try {
    segments = path.split("?")[0]!.split("/").map(decodeURIComponent);
  } catch {
    return fail("INVALID_STREAM_ID", "path is not valid percent-encoding");
  }
  if (path.startsWith(V1_PREFIX) && segments.length === 4) return parseStreamPath(DEFAULT_BUCKET, segments[3]!);
  if (segments.length === 3 && segments[0] === "") return parseStreamPath(segments[1]!, segments[2]!);
  return fail("INVALID_STREAM_ID", `${JSON.stringify(path)} is not a stream path`);
}

/** Where the path of an absolute request URL starts: the end of its authority. */
export function pathStart(url: string): number {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  return start < 0 ? url.length : start;
}

/** The still-encoded path of a request URL, without building a URL object on the hot path. */
export function rawPathname(url: string, start = pathStart(url)): string {
  if (start === url.length) return "/";
  const query = url.indexOf("?", start);
  const hash = url.indexOf("#", start);
  const end = query >= 0 ? query : hash >= 0 ? hash : url.length;
  return url.slice(start, end);
}
