// GET (catch-up, long-poll, SSE) and HEAD on a stream (spec §2.7, §2.8, §4).

import { isJsonType, isSseTextType } from "../protocol/content-type";
import { streamCursor } from "../protocol/cursor";
import { isProtocolError, protocolError } from "../protocol/errors";
import { formatRfc3339 } from "../protocol/lifetime";
import { formatOffset } from "../protocol/offsets";
import { belowFloor, checkAddressed, planReadStart, readLimit } from "../protocol/read";
import type { StreamState } from "../protocol/state";
import type { SsePayloadMode } from "../live/sse-payload";
import { sseBody } from "../live/sse-session";
import type { AppDeps } from "./deps";
import { renderError } from "./error-map";
import { baseHeaders, H } from "./headers";
import type { StreamPath } from "../protocol/paths";
import { parseReadQuery, type ReadQuery } from "./read-query";
import { readInSteps } from "./stepped-read";
import { jsonArrayOut, piecesOut } from "./stream-out";
import { parseIncarnationHeader } from "./write-requests";

/** How much longer a request's credential is accepted (ms), or null if it does not expire (security/gate.ts). */
export type CredentialLeft = (req: Request) => number | null;

/** `credentialLeftMs`: a live read ends by then, so it never outlasts the token it was admitted with. */
export async function readStream(deps: AppDeps, req: Request, path: StreamPath, credentialLeftMs: number | null): Promise<Response> {
  const url = new URL(req.url);
  const query = parseReadQuery(url, req.headers.get("accept"), req.headers.get(H.lastEventId));
  if (!query.ok) return renderError(query.error);
  const incarnation = parseIncarnationHeader(req.headers);
  if (!incarnation.ok) return renderError(incarnation.error);
  const state = await deps.store.get(path.key);
  const start = planReadStart(state, query.value.offset, incarnation.value);
  if (isProtocolError(start)) return renderError(start);
  const arrayMode = isJsonType(state!.contentType) && !query.value.ndjson;
  if (arrayMode && !(await deps.store.isMessageStart(state!, start))) {
    return renderError(protocolError("INVALID_OFFSET", "offset falls inside a JSON message"));
  }
  await deps.store.renewTtl(path.key);
  const q = query.value;
  if (q.live === "sse") return sse(deps, req, path, state!, start, q, credentialLeftMs);
  if (q.live === "long-poll") return longPoll(deps, req, path, state!, start, q, arrayMode, incarnation.value, credentialLeftMs);
  return await catchUp(req, deps, state!, start, q, arrayMode, q.offset.kind === "now");
}

function representation(state: StreamState, arrayMode: boolean): string {
  return isJsonType(state.contentType) && !arrayMode ? "application/x-ndjson" : state.contentType;
}

async function catchUp(req: Request, deps: AppDeps, state: StreamState, start: number, q: ReadQuery, arrayMode: boolean, now: boolean, cursor = false): Promise<Response> {
  // Bytes a segment file holds are sent from the file (sendfile, no copy); any others from rows.
  const file = arrayMode ? null : (deps.store.fileSpan?.(state, start, readLimit(q.maxBytes)) ?? null);
  const slice = file ? { chunks: [], end: file.end } : await readInSteps(deps.store, state, start, readLimit(q.maxBytes), arrayMode);
  const h = baseHeaders();
  h.set(H.contentType, representation(state, arrayMode));
  h.set(H.nextOffset, formatOffset(slice.end));
  h.set(H.incarnation, state.incarnation);
  const atTail = slice.end === state.tail;
  if (atTail) h.set(H.upToDate, "true");
  const closed = atTail && state.closed;
  if (closed) h.set(H.closed, "true");
  else if (cursor) h.set(H.cursor, streamCursor(Date.now(), q.cursor));
  // offset=now answers the position, not a cacheable range: no ETag (spec §4.6).
  if (!now) {
    const etag = `"${state.incarnation}:${start}:${slice.end}:${arrayMode ? "a" : "b"}${closed ? ":c" : ""}"`;
    h.set(H.etag, etag);
    if (matches(req.headers.get(H.ifNoneMatch), etag)) return new Response(null, { status: 304, headers: h });
  }
  // Written out from the rows as they are held (stream-out.ts), never joined into one array first.
  const body = file ? file.body : arrayMode ? jsonArrayOut(slice.chunks) : piecesOut(slice.chunks);
  return new Response(body, { status: 200, headers: h });
}

function matches(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false;
  return ifNoneMatch.split(",").some((t) => {
    const v = t.trim();
    return v === "*" || v === etag || v === `W/${etag}`;
  });
}

async function longPoll(
  deps: AppDeps,
  req: Request,
  path: StreamPath,
  initial: StreamState,
  start: number,
  q: ReadQuery,
  arrayMode: boolean,
  incarnation: string | null,
  credentialLeftMs: number | null,
): Promise<Response> {
  let state = initial;
  if (start === state.tail && !state.closed) {
    const client = deps.clientAddress(req);
    const refused = liveRefusal(deps, client);
    if (refused) return refused;
    deps.closeIdleAfter(req, 0);
    const deadline = Date.now() + within(q.timeoutMs ?? deps.limits.longPollTimeoutMs, credentialLeftMs);
    const place = { bucket: state.bucket, offset: start, startedAtMs: Date.now() };
    for (;;) {
      const remaining = deadline - Date.now();
      const wake = remaining > 0 ? await deps.hub.wait(state.id, remaining, req.signal, client, place) : "timeout";
      const now = await deps.store.get(path.key);
      if (!now || now.id !== state.id || now.softDeleted) {
        // The stream this reader waited on is gone: a recreated one is not a continuation.
        if (now && !now.softDeleted && incarnation !== null) {
          return renderError(protocolError("STREAM_INCARNATION_MISMATCH", "the stream was deleted and recreated while you waited", { incarnation: now.incarnation, nextOffset: now.tail }));
        }
        return renderError(protocolError("STREAM_NOT_FOUND", "the stream was deleted while you waited"));
      }
      state = now;
      // Retention that overtook the reader while it waited (spec §3.4): its offset is gone.
      const gone = belowFloor(state, start);
      if (gone) return renderError(gone);
      if (state.tail > start || state.closed || wake !== "changed") break;
    }
  }
  if (state.tail > start) return catchUp(req, deps, state, start, q, arrayMode, false, true);
  const h = baseHeaders();
  h.set(H.nextOffset, formatOffset(state.tail));
  h.set(H.upToDate, "true");
  h.set(H.incarnation, state.incarnation);
  if (state.closed) h.set(H.closed, "true");
  else h.set(H.cursor, streamCursor(Date.now(), q.cursor));
  return new Response(null, { status: 204, headers: h });
}

/**
 * Live readers hold a connection, and so a file descriptor, for as long as they read: past the
 * caps they are turned away with 503 and Retry-After, so descriptors never run out (an accept()
 * that finds none left makes Bun spin; see docs/operations.md).
 */
function liveRefusal(deps: AppDeps, client: string): Response | null {
  const why = deps.hub.refusal(client);
  if (why === null) return null;
  const message = why === "server" ? "too many live readers; retry shortly" : "this client address holds as many live readers as it may; close one or retry shortly";
  return renderError(protocolError("LIVE_READ_BACKPRESSURE", message));
}

const within = (ms: number, credentialLeftMs: number | null) => (credentialLeftMs === null ? ms : Math.min(ms, credentialLeftMs));

function sse(deps: AppDeps, req: Request, path: StreamPath, state: StreamState, start: number, q: ReadQuery, credentialLeftMs: number | null): Response {
  const client = deps.clientAddress(req);
  const refused = liveRefusal(deps, client);
  if (refused) return refused;
  deps.closeIdleAfter(req, 0);
  const json = isJsonType(state.contentType);
  const mode: SsePayloadMode = json ? (q.ndjson ? "ndjson" : "json-array") : isSseTextType(state.contentType) ? "text" : "base64";
  const h = baseHeaders("no-cache");
  h.set(H.contentType, "text/event-stream");
  h.set(H.sseDataContentType, json && q.ndjson ? "application/x-ndjson" : state.contentType);
  if (mode === "base64") h.set(H.sseDataEncoding, "base64");
  h.set(H.incarnation, state.incarnation);
  const body = sseBody({
    store: deps.store,
    hub: deps.hub,
    key: path.key,
    state,
    start,
    limitBytes: readLimit(q.maxBytes),
    mode,
    cursor: q.cursor,
    heartbeatMs: deps.limits.sseHeartbeatMs,
    // Ending with a final control, as at --sse-max-duration: the client reconnects, and a token
    // that has expired by then is refused (401).
    maxDurationMs: within(deps.limits.sseMaxDurationMs, credentialLeftMs),
    signal: req.signal,
    client,
  });
  return new Response(body, { status: 200, headers: h });
}

export async function headStream(deps: AppDeps, req: Request, path: StreamPath): Promise<Response> {
  const incarnation = parseIncarnationHeader(req.headers);
  if (!incarnation.ok) return renderError(incarnation.error);
  const checked = checkAddressed(await deps.store.get(path.key), incarnation.value);
  if (isProtocolError(checked)) return renderError(checked);
  const s = checked;
  const h = baseHeaders();
  h.set(H.contentType, s.contentType);
  h.set(H.nextOffset, formatOffset(s.tail));
  h.set(H.upToDate, "true");
  h.set(H.incarnation, s.incarnation);
  if (s.closed) h.set(H.closed, "true");
  if (s.ttlSeconds !== null) h.set(H.ttl, String(s.ttlSeconds));
  if (s.expiresAtMs !== null) h.set(H.expiresAt, formatRfc3339(s.expiresAtMs));
  h.set(H.retainedOffset, formatOffset(s.retained));
  if (s.snapshot) {
    h.set(H.snapshotOffset, formatOffset(s.snapshot.offset));
    h.set(H.snapshotDigest, s.snapshot.digest);
  }
  // Everything HEAD reports but the attributes, which move no ETag (spec §2.12).
  const snapshot = s.snapshot ? `:s${s.snapshot.offset}.${s.snapshot.digest.slice(0, 16)}` : "";
  const etag = `"${s.incarnation}:${s.tail}:h${s.retained > 0 ? `:r${s.retained}` : ""}${snapshot}${s.closed ? ":c" : ""}"`;
  h.set(H.etag, etag);
  return new Response(null, { status: matches(req.headers.get(H.ifNoneMatch), etag) ? 304 : 200, headers: h });
}
