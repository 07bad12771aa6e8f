// Reads of a stream's bytes for the viewer and for export: plain protocol reads through the
// exchange client, from an offset and for at most so many bytes, carrying the incarnation on
// screen so that a stream recreated meanwhile answers 412 instead of showing a stranger's bytes.
// JSON streams are read as NDJSON, the bytes the server stores. These reads are not recorded in
// the attempt timeline: scrolling would fill it with pages of reads.
import type { ContentKind } from "../api/contentKind";
import { send } from "../api/exchange";
import { getHeader } from "../api/headers";
import { offsetPosition, offsetToken } from "../api/offsets";
import type { ReadResult } from "./messageWindow";

export function streamReader(path: string, kind: ContentKind, incarnation: string) {
  return async (offset: number, maxBytes: number, signal: AbortSignal): Promise<ReadResult> => {
    const q = new URLSearchParams({ offset: offsetToken(offset), max_bytes: String(Math.max(1, maxBytes)) });
    if (kind === "json") q.set("format", "ndjson");
    const ex = await send({ method: "GET", path: `${path}?${q.toString()}`, headers: [["Stream-Incarnation", incarnation]] }, { keepBytes: true, signal });
    const res = ex.response;
    if (!res) return { ok: false, message: ex.networkError ?? "no response" };
    if (res.status !== 200) {
      const why = res.status === 412 ? ": the stream was deleted and recreated, reload the page" : res.status === 404 ? ": the stream no longer exists" : "";
      return { ok: false, message: `${res.status} ${ex.errorCode ?? res.statusText}${why}` };
    }
    const bytes = res.bodyBytes ?? new Uint8Array();
    return { ok: true, bytes, next: offsetPosition(getHeader(res.headers, "stream-next-offset")) ?? offset + bytes.length };
  };
}
