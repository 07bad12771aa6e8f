// A bootstrap answer (docs/api.md, GET …/bootstrap) read out of an exchange: the snapshot part
// (an empty part and Stream-Snapshot-Offset: -1 without one), then one part per message, and
// where ordinary reads go on. Needs the exchange's raw bytes (send with keepBytes).
import type { Exchange } from "./types";
import { getHeader } from "./headers";
import { boundaryOf, parseMultipart, type Part } from "./multipart";

export interface BootstrapView {
  snapshot: { offset: string; digest: string; contentType: string; body: Uint8Array } | null;
  messages: Part[];
  nextOffset: string;
  upToDate: boolean;
  boundary: string;
}

export type BootstrapRead = { ok: true; view: BootstrapView } | { ok: false; message: string };

export function readBootstrap(ex: Exchange): BootstrapRead {
  const res = ex.response;
  if (!res || res.status !== 200) return { ok: false, message: `${res?.status ?? ex.networkError} ${ex.errorCode ?? ""}`.trim() };
  const boundary = boundaryOf(getHeader(res.headers, "content-type"));
  if (!boundary) return { ok: false, message: "the answer is not multipart: no boundary in its Content-Type" };
  let parts: Part[];
  try {
    parts = parseMultipart(res.bodyBytes ?? new TextEncoder().encode(res.bodyText), boundary);
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
  const [first, ...messages] = parts;
  if (!first) return { ok: false, message: "no snapshot part" };
  const offset = getHeader(res.headers, "stream-snapshot-offset") ?? "-1";
  return {
    ok: true,
    view: {
      snapshot: offset === "-1" ? null : { offset, digest: getHeader(res.headers, "stream-snapshot-digest") ?? "", contentType: first.contentType, body: first.body },
      messages,
      nextOffset: getHeader(res.headers, "stream-next-offset") ?? "",
      upToDate: getHeader(res.headers, "stream-up-to-date") === "true",
      boundary,
    },
  };
}

const utf8 = new TextDecoder();

export function partText(body: Uint8Array): string {
  return utf8.decode(body);
}
