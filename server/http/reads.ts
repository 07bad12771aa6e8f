// GET (catch-up, long-poll, SSE) and HEAD on a stream (spec §2.7, §2.8, §4): parsed here, planned
// and run by read-executor.ts, rendered here.

import { isJsonType, isSseTextType } from "../protocol/content-type";
import { streamCursor } from "../protocol/cursor";
import { isProtocolError, protocolError } from "../protocol/errors";
import { formatRfc3339 } from "../protocol/lifetime";
import { formatOffset } from "../protocol/offsets";
import { catchUpEtag, headEtag, notModified, type ServePlan } from "../protocol/read";
import type { StreamState } from "../protocol/state";
import type { SsePayloadMode } from "../live/sse-payload";
import { sseBody } from "../live/sse-session";
import type { AppDeps } from "./deps";
import { renderError } from "./error-map";
import { baseHeaders, H } from "./headers";
import type { StreamPath } from "../protocol/paths";
import { catchUpBytes, planHead, planRead, waitPastTail } from "./read-executor";
import type { RangeReader } from "./stepped-read";
import { parseReadQuery, type ReadQuery } from "./read-query";
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
  const q = query.value;
  // Before the state is read: a long-poll at its tail then misses no commit that read did not see.
  const since = deps.hub.mark();
  const plan = await planRead(deps.store, path.key, q, incarnation.value);
  if (plan.kind === "error") return renderError(plan);
  if (q.live === "sse") return sse(deps, req, path, plan, q, credentialLeftMs);
  if (q.live === "long-poll") return longPoll(deps, req, path, plan, q, incarnation.value, credentialLeftMs, since);
  return await catchUp(req, deps, plan.state, plan, q, q.offset.kind === "now");
}

function representation(state: StreamState, arrayMode: boolean): string {
  return isJsonType(state.contentType) && !arrayMode ? "application/x-ndjson" : state.contentType;
}

/** `state` is the plan's, or the newer one a long-poll woke to; then `rows` are its shared reads. */
async function catchUp(req: Request, deps: AppDeps, state: StreamState, plan: ServePlan, q: ReadQuery, now: boolean, cursor = false, rows: RangeReader = deps.store): Promise<Response> {
  const { start, arrayMode } = plan;
  const bytes = catchUpBytes(deps.store, state, start, plan, req.signal, rows);
  const slice = bytes instanceof Promise ? await bytes : bytes;
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
    const etag = catchUpEtag(state, start, slice.end, arrayMode, closed);
    h.set(H.etag, etag);
    if (notModified(req.headers.get(H.ifNoneMatch), etag)) return new Response(null, { status: 304, headers: h });
  }
  // Written out from the rows as they are held (stream-out.ts), never joined into one array first.
  const body = "body" in slice ? slice.body : arrayMode ? jsonArrayOut(slice.chunks) : piecesOut(slice.chunks);
  return new Response(body, { status: 200, headers: h });
}

async function longPoll(deps: AppDeps, req: Request, path: StreamPath, plan: ServePlan, q: ReadQuery, incarnation: string | null, credentialLeftMs: number | null, since: number): Promise<Response> {
  const { start } = plan;
  let state = plan.state;
  let rows: RangeReader = deps.store;
  if (start === state.tail && !state.closed) {
    const client = deps.clientAddress(req);
    const refused = liveRefusal(deps, client);
    if (refused) return refused;
    deps.closeIdleAfter(req, 0);
    const deadline = Date.now() + within(q.timeoutMs ?? deps.limits.longPollTimeoutMs, credentialLeftMs);
    const reads = deps.hub.reads(path.key, state.id);
    const woke = await waitPastTail({ hub: deps.hub, reads, state, since, start, incarnation, deadline, signal: req.signal, client });
    if (isProtocolError(woke)) return renderError(woke);
    state = woke;
    rows = reads;
  }
  if (state.tail > start) return catchUp(req, deps, state, plan, q, false, true, rows);
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

function sse(deps: AppDeps, req: Request, path: StreamPath, plan: ServePlan, q: ReadQuery, credentialLeftMs: number | null): Response {
  const { state, start } = plan;
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
    reads: deps.hub.reads(path.key, state.id),
    hub: deps.hub,
    state,
    start,
    limitBytes: plan.limit,
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
  const s = await planHead(deps.store, path.key, incarnation.value);
  if (isProtocolError(s)) return renderError(s);
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
  const etag = headEtag(s);
  h.set(H.etag, etag);
  return new Response(null, { status: notModified(req.headers.get(H.ifNoneMatch), etag) ? 304 : 200, headers: h });
}
