// One SSE read over fetch (not EventSource: it cannot send Stream-Incarnation, and we need
// the status of a refused connect). Being fetch, it sends the console's token as a header too,
// where EventSource would need ?access_token= in the URL (docs/security.md: prefer the header). Frames are parsed by eventsource-parser. The function
// resolves when the connection ends and says why; reconnecting is the tail model's job.
import { createParser } from "eventsource-parser";
import { addBearer, noticeChallenge } from "./credentials";

export interface SseControl {
  streamNextOffset: string;
  streamCursor?: string;
  upToDate?: boolean;
  streamClosed?: boolean;
}

export interface SseHandlers {
  onOpen?(info: { incarnation?: string; base64: boolean; dataContentType?: string }): void;
  /** Decoded payload of one `event: data`: text for JSON/text streams, bytes for base64 ones. */
  onData(payload: string | Uint8Array): void;
  onControl(control: SseControl): void;
}

export type SseEnd =
  | { kind: "ended" } // the server finished the response cleanly (e.g. its 60 s lifetime)
  | { kind: "closed" } // a control event said streamClosed: nothing more will ever come
  | { kind: "refused"; status: number; code?: string; incarnation?: string } // non-200 at connect
  | { kind: "server-error"; message: string } // `event: error` (stream deleted, expired…)
  | { kind: "failed"; message: string } // network failure mid-stream
  | { kind: "aborted" };

export interface SseRequest {
  url: string;
  headers?: Record<string, string>;
  signal: AbortSignal;
  fetchImpl?: typeof fetch;
}

export function decodeBase64(data: string): Uint8Array {
  const bin = atob(data.replace(/\s+/g, ""));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export async function readSse(req: SseRequest, h: SseHandlers): Promise<SseEnd> {
  const doFetch = req.fetchImpl ?? fetch;
  let res: Response;
  try {
    const headers = new Headers(req.headers);
    addBearer(headers);
    res = await doFetch(req.url, { headers, signal: req.signal, cache: "no-store" });
  } catch (e) {
    return req.signal.aborted ? { kind: "aborted" } : { kind: "failed", message: errText(e) };
  }
  if (res.status !== 200 || !res.body) {
    noticeChallenge(res.status, res.headers.get("www-authenticate"), new URL(req.url).pathname);
    let code: string | undefined;
    try {
      code = ((await res.json()) as { error?: { code?: string } }).error?.code;
    } catch {
      /* no JSON body */
    }
    return { kind: "refused", status: res.status, code, incarnation: res.headers.get("stream-incarnation") ?? undefined };
  }
  const base64 = res.headers.get("stream-sse-data-encoding") === "base64";
  h.onOpen?.({
    incarnation: res.headers.get("stream-incarnation") ?? undefined,
    base64,
    dataContentType: res.headers.get("stream-data-content-type") ?? undefined,
  });
  let end: SseEnd | undefined;
  const parser = createParser({
    onEvent(ev) {
      if (end) return;
      if (ev.event === "data") h.onData(base64 ? decodeBase64(ev.data) : ev.data);
      else if (ev.event === "control") {
        const c = JSON.parse(ev.data) as SseControl;
        h.onControl(c);
        if (c.streamClosed) end = { kind: "closed" };
      } else if (ev.event === "error") end = { kind: "server-error", message: ev.data || "stream error" };
    },
  });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    while (!end) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(value);
    }
  } catch (e) {
    return req.signal.aborted ? { kind: "aborted" } : { kind: "failed", message: errText(e) };
  } finally {
    reader.cancel().catch(() => {});
  }
  return end ?? { kind: "ended" };
}

function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
