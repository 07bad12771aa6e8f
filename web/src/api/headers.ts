// Case-insensitive access to header lists, and the display spelling of header names.
import type { Exchange, HeaderList } from "./types";

export function getHeader(headers: HeaderList | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  const lower = name.toLowerCase();
  for (const [k, v] of headers) if (k.toLowerCase() === lower) return v;
  return undefined;
}

export function responseHeader(ex: Exchange | undefined, name: string): string | undefined {
  return getHeader(ex?.response?.headers, name);
}

export function requestHeader(ex: Exchange | undefined, name: string): string | undefined {
  return getHeader(ex?.request.headers, name);
}

/** fetch lowercases names; show them the way the spec spells them ("stream-last-seq" → "Stream-Last-Seq"). */
export function displayHeaderName(name: string): string {
  const special: Record<string, string> = { etag: "ETag", "stream-ttl": "Stream-TTL", "stream-sse-data-encoding": "Stream-SSE-Data-Encoding" };
  const lower = name.toLowerCase();
  if (special[lower]) return special[lower];
  return lower.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
}
