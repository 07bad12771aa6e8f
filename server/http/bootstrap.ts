// GET /{bucket}/{stream}/bootstrap (spec §2.18): one multipart/mixed answer holding the snapshot
// and the messages after it, streamed out as the client takes it. Its messages are read in the
// same turn as the stream's state (one consistent view, at most 8 MiB and a message), and its
// snapshot is pinned then, so a newer publish or retention while it streams changes nothing of it.

import { bootstrapEnd, bootstrapStart, BOOTSTRAP_MAX_BYTES } from "../protocol/bootstrap";
import { DEFAULT_CONTENT_TYPE, isJsonType } from "../protocol/content-type";
import { isProtocolError, protocolError } from "../protocol/errors";
import { formatOffset } from "../protocol/offsets";
import { checkAddressed } from "../protocol/read";
import { concat } from "../live/sse-payload";
import type { SnapshotReader } from "../storage/store";
import type { AppDeps } from "./deps";
import { renderError } from "./error-map";
import { baseHeaders, H } from "./headers";
import { closeDelimiter, contains, NeedleScanner, PART_END, partHead, randomBoundary } from "./multipart";
import type { StreamPath } from "./paths";
import { streamOut } from "./stream-out";
import { parseIncarnationHeader } from "./write-requests";

export async function bootstrap(deps: AppDeps, req: Request, path: StreamPath, head: boolean): Promise<Response> {
  const q = new URL(req.url).searchParams;
  if (q.has("live")) {
    return renderError(protocolError("INVALID_QUERY", "bootstrap answers once; follow it with reads (live ones too) from its Stream-Next-Offset"));
  }
  const consistency = q.get("consistency");
  if (consistency !== null && consistency !== "leader" && consistency !== "local") {
    return renderError(protocolError("INVALID_QUERY", "consistency must be leader or local"));
  }
  const incarnation = parseIncarnationHeader(req.headers);
  if (!incarnation.ok) return renderError(incarnation.error);
  const checked = checkAddressed(await deps.store.get(path.key), incarnation.value);
  if (isProtocolError(checked)) return renderError(checked);
  const state = checked;
  const slice = await deps.store.readRange(state, bootstrapStart(state), BOOTSTRAP_MAX_BYTES, true);
  const end = bootstrapEnd(state, slice.end);
  // A JSON message is stored with its LF; its part is the message text alone.
  const messages = isJsonType(state.contentType) ? slice.chunks.map((m) => m.subarray(0, m.length - 1)) : slice.chunks;
  const reader = state.snapshot && !head ? await deps.store.openSnapshot(state.snapshot) : null;
  const boundary = head ? randomBoundary() : await freeBoundary(messages, reader);
  const snapshotType = state.snapshot?.contentType ?? DEFAULT_CONTENT_TYPE;

  const h = baseHeaders();
  h.set(H.contentType, `multipart/mixed; boundary=${boundary}`);
  // Literally -1 without a snapshot (spec §2.18, §3.1).
  h.set(H.snapshotOffset, state.snapshot ? formatOffset(state.snapshot.offset) : "-1");
  // Not in the spec's list, but what a client needs to publish the next snapshot conditionally.
  if (state.snapshot) h.set(H.snapshotDigest, state.snapshot.digest);
  h.set(H.nextOffset, formatOffset(slice.end));
  if (end.upToDate) h.set(H.upToDate, "true");
  if (end.closed) h.set(H.closed, "true");
  h.set(H.incarnation, state.incarnation);
  const parts = { boundary, snapshotType, contentType: state.contentType, messages };
  if (head) return new Response(null, { status: 200, headers: h });
  await deps.store.renewTtl(path.key);
  return new Response(bootstrapBody(parts, reader, req.signal), { status: 200, headers: h });
}

/** A boundary that occurs in no payload (RFC 2046 §5.1.1); drawn again in the unlikely case it does. */
export async function freeBoundary(messages: Uint8Array[], snapshot: SnapshotReader | null, draw = randomBoundary): Promise<string> {
  for (;;) {
    const boundary = draw();
    const needle = new TextEncoder().encode(boundary);
    if (messages.some((m) => contains(m, needle))) continue;
    // Only a snapshot whose bytes hold the boundary's fixed prefix can hold the boundary, and
    // only such a one is read through before it is sent.
    if (snapshot?.mentionsBoundary) {
      const scanner = new NeedleScanner(needle);
      for (let i = 0; i < snapshot.chunks && !scanner.found; i++) scanner.feed(await snapshot.chunk(i));
      if (scanner.found) continue;
    }
    return boundary;
  }
}

interface Parts {
  boundary: string;
  snapshotType: string;
  contentType: string;
  messages: Uint8Array[];
}

/** Message parts are packed into pieces of about this size: one write per piece, not per part. */
const PIECE_BYTES = 256 * 1024;

function bootstrapBody(p: Parts, snapshot: SnapshotReader | null, signal: AbortSignal): ReadableStream<Uint8Array> {
  const release = () => snapshot?.release();
  return streamOut(pieces(p, snapshot, release), release, signal);
}

/** The body in order: the snapshot part chunk by chunk, then the message parts packed into pieces. */
async function* pieces(p: Parts, snapshot: SnapshotReader | null, release: () => void): AsyncGenerator<Uint8Array> {
  yield partHead(p.boundary, p.snapshotType);
  for (let i = 0; snapshot !== null && i < snapshot.chunks; i++) yield await snapshot.chunk(i);
  release();
  const head = partHead(p.boundary, p.contentType);
  let batch: Uint8Array[] = [PART_END];
  let size = 0;
  for (const m of p.messages) {
    batch.push(head, m, PART_END);
    size += head.length + m.length + PART_END.length;
    if (size >= PIECE_BYTES) {
      yield concat(batch);
      batch = [];
      size = 0;
    }
  }
  batch.push(closeDelimiter(p.boundary));
  yield concat(batch);
}
