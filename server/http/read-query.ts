// The read query (spec §2.7): offset, live, max_bytes, timeout_ms, consistency, cursor, format.

import { fail, ok, type Parsed } from "../protocol/errors";
import { parseOffsetToken, type OffsetInput } from "../protocol/offsets";

export interface ReadQuery {
  offset: OffsetInput;
  live: "long-poll" | "sse" | null;
  maxBytes: number | null;
  timeoutMs: number | null;
  cursor: string | null;
  ndjson: boolean;
}

const POSITIVE = /^[1-9][0-9]{0,15}$/;
const INTEGER = /^[0-9]{1,16}$/;

/**
 * `lastEventId` is the Last-Event-ID header: an EventSource reconnecting by itself sends the id of
 * the last event it saw (sse-frames.ts), and an SSE read resumes there rather than at the URL's offset.
 */
export function parseReadQuery(url: URL, accept: string | null, lastEventId: string | null): Parsed<ReadQuery> {
  const q = url.searchParams;
  const offsets = q.getAll("offset");
  if (offsets.length > 1) return fail("INVALID_OFFSET", "offset may be given once");
  const liveRaw = q.get("live");
  if (liveRaw !== null && liveRaw !== "long-poll" && liveRaw !== "sse") {
    return fail("INVALID_QUERY", "live must be long-poll or sse");
  }
  if (liveRaw !== null && offsets.length === 0) return fail("INVALID_QUERY", `live=${liveRaw} needs an explicit offset`);
  let offset: OffsetInput = { kind: "start" };
  if (offsets.length === 1) {
    const parsed = parseOffsetToken(offsets[0]!, true);
    if (!parsed.ok) return parsed;
    offset = parsed.value;
  }
  if (liveRaw === "sse" && lastEventId !== null) {
    const resumed = parseOffsetToken(lastEventId.trim(), false);
    if (!resumed.ok) return fail("INVALID_OFFSET", "Last-Event-ID is not an offset this server sent as an event id");
    offset = resumed.value;
  }
  const maxRaw = q.get("max_bytes");
  if (maxRaw !== null && !POSITIVE.test(maxRaw)) return fail("INVALID_QUERY", "max_bytes must be a positive integer");
  const timeoutRaw = q.get("timeout_ms");
  if (timeoutRaw !== null && !INTEGER.test(timeoutRaw)) return fail("INVALID_QUERY", "timeout_ms must be an integer");
  const consistency = q.get("consistency");
  // One node is always the leader, so both values read committed state (spec §6).
  if (consistency !== null && consistency !== "leader" && consistency !== "local") {
    return fail("INVALID_QUERY", "consistency must be leader or local");
  }
  const format = q.get("format");
  if (format !== null && format !== "array" && format !== "ndjson") return fail("INVALID_QUERY", "format must be array or ndjson");
  const ndjson = format === "ndjson" || (format === null && accept !== null && accept.includes("application/x-ndjson"));
  return ok({
    offset,
    live: liveRaw,
    maxBytes: maxRaw === null ? null : Number(maxRaw),
    timeoutMs: timeoutRaw === null ? null : Math.min(Math.max(Number(timeoutRaw), 1), 60_000),
    cursor: q.get("cursor"),
    ndjson,
  });
}
