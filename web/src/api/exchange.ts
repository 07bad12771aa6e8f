// The one function that talks the protocol. It never throws for an HTTP status: a 409 or a
// 412 is the answer the console exists to show, so it comes back as data like a 200 does.
// Only a missing response (network failure, abort) is reported, still as data.
import type { Exchange, ProtocolRequest } from "./types";
import { addBearer, noticeChallenge } from "./credentials";
import { encodeFrames } from "./frames";

let counter = 0;
export function exchangeId(): string {
  counter += 1;
  return `${Date.now().toString(36)}-${counter.toString(36)}`;
}

export interface SendOptions {
  origin?: string;
  signal?: AbortSignal;
  /** Keep the raw body bytes (binary reads); text is still decoded for display. */
  keepBytes?: boolean;
  fetchImpl?: typeof fetch;
  /**
   * Stop reading the body after this long and keep what arrived. For live=sse, whose
   * response stays open: without it, showing the answer would wait for the server to end it.
   */
  maxReadMs?: number;
}

export function defaultOrigin(): string {
  return typeof location !== "undefined" ? location.origin : "http://127.0.0.1:4437";
}

/**
 * Turn the request object into exactly the fetch call that sends it, with the console's bearer
 * token when it has one (`bearer` says whether it was added).
 */
export function toFetchInit(req: ProtocolRequest, signal?: AbortSignal): RequestInit & { bearer: boolean } {
  const headers = new Headers();
  for (const [k, v] of req.headers) headers.append(k, v);
  const bearer = addBearer(headers);
  const init: RequestInit & { bearer: boolean } = { method: req.method, headers, signal, cache: "no-store", bearer };
  // A Blob without a type keeps fetch from inventing "Content-Type: text/plain" when the
  // user deliberately sent a body without one (the server must see MISSING_CONTENT_TYPE).
  if (req.frames !== undefined) init.body = new Blob([encodeFrames(req.frames) as Uint8Array<ArrayBuffer>]);
  else if (req.body !== undefined) init.body = new Blob([req.body]);
  return init;
}

export async function send(req: ProtocolRequest, opts: SendOptions = {}): Promise<Exchange> {
  const origin = opts.origin ?? defaultOrigin();
  const doFetch = opts.fetchImpl ?? fetch;
  const startedAt = Date.now();
  const t0 = performance.now();
  const ex: Exchange = { id: exchangeId(), origin, request: req, startedAt, durationMs: 0 };
  try {
    const { bearer, ...init } = toFetchInit(req, opts.signal);
    if (bearer) ex.bearer = true;
    const res = await doFetch(origin + req.path, init);
    // fetch follows a 307 by itself and a page cannot see the 307 (an opaque redirect): say where it went.
    if (res.redirected) ex.redirectedTo = res.url;
    noticeChallenge(res.status, res.headers.get("www-authenticate"), req.path);
    const { bytes, cut } = await readBody(res, opts.maxReadMs);
    if (cut) ex.bodyCut = `stopped reading after ${opts.maxReadMs} ms: the response was still open`;
    const headers: [string, string][] = [];
    res.headers.forEach((v, k) => headers.push([k, v]));
    const bodyText = new TextDecoder().decode(bytes);
    ex.response = { status: res.status, statusText: res.statusText, headers, bodyText };
    if (opts.keepBytes) ex.response.bodyBytes = bytes;
    const err = parseErrorBody(bodyText);
    if (err) {
      ex.errorCode = err.code;
      ex.errorMessage = err.message;
    }
  } catch (e) {
    ex.networkError = e instanceof Error ? e.message : String(e);
  }
  ex.durationMs = Math.round((performance.now() - t0) * 10) / 10;
  return ex;
}

async function readBody(res: Response, maxReadMs: number | undefined): Promise<{ bytes: Uint8Array; cut: boolean }> {
  if (maxReadMs === undefined || !res.body) return { bytes: new Uint8Array(await res.arrayBuffer()), cut: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let cut = false;
  const timer = setTimeout(() => {
    cut = true;
    reader.cancel().catch(() => {});
  }, maxReadMs);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
  } catch {
    // cancelled by the timer: keep what arrived
  } finally {
    clearTimeout(timer);
  }
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return { bytes: out, cut };
}

/** `{"error":{"code":"…","message":"…"}}` → its fields; anything else → undefined. */
export function parseErrorBody(text: string): { code: string; message?: string } | undefined {
  if (!text.startsWith("{")) return undefined;
  try {
    const v = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (v && typeof v.error === "object" && v.error && typeof v.error.code === "string") {
      return { code: v.error.code, message: typeof v.error.message === "string" ? v.error.message : undefined };
    }
  } catch {
    /* not JSON: not an error body */
  }
  return undefined;
}
