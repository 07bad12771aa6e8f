// Snapshots (spec §2.13–§2.16): publish, latest (307), read by offset, delete. A body of up to
// --max-snapshot-bytes streams into storage as it arrives, hashed on the way, and never sits
// whole in memory; a read streams out the same way.

import { DEFAULT_CONTENT_TYPE, parseContentType } from "../protocol/content-type";
import { fail, isProtocolError, ok, protocolError, type Parsed } from "../protocol/errors";
import { formatOffset } from "../protocol/offsets";
import { decideSnapshotDelete, decideSnapshotRead, precheckPublish, snapshotDigest, type PublishRequest } from "../protocol/snapshot";
import { targetOffset } from "../protocol/retention";
import type { SnapshotMeta, StreamState } from "../protocol/state";
import type { SnapshotReader, SnapshotUpload } from "../storage/store";
import type { AppDeps } from "./deps";
import { renderError } from "./error-map";
import { withNearestBoundaries } from "./nearest-boundaries";
import { baseHeaders, H } from "./headers";
import { TOO_SLOW, type PacedBody } from "./body-pace";
import { tooSlow } from "./body";
import { BOUNDARY_PREFIX, NeedleScanner } from "./multipart";
import type { StreamPath } from "../protocol/paths";
import { parseOffsetSegment, parseResourceTarget } from "./resource-target";
import { writtenOut } from "./stream-out";
import { parseIncarnationHeader } from "./write-requests";

/** The body budget an upload takes: what it buffers before each chunk is written out. */
const UPLOAD_HOLD_BYTES = 1024 * 1024;

const boundaryPrefix = new TextEncoder().encode(BOUNDARY_PREFIX);

export async function publishSnapshot(deps: AppDeps, req: Request, path: StreamPath, arg: string | null): Promise<Response> {
  const request = parsePublish(req, arg);
  if (!request.ok) return renderError(request.error);
  // What the body cannot change is refused before a byte of it is read.
  const early = precheckPublish(await deps.store.get(path.key), request.value);
  if (early) return renderError(early);
  const max = deps.limits.maxSnapshotBytes;
  const declared = req.headers.get(H.contentLength);
  if (declared !== null && Number(declared) > max) return tooLarge(max);
  const hold = deps.bodies.hold();
  if (!hold.take(Math.min(UPLOAD_HOLD_BYTES, deps.bodies.limit))) {
    return renderError(protocolError("INGRESS_BODY_BYTES_LIMIT", "the server holds as many request bodies as it may; retry shortly"));
  }
  try {
    const upload = deps.store.stageSnapshot();
    // A failed write (a full disk) leaves a staging blob; it is dropped if possible, else at start-up.
    const discard = () => deps.store.discardSnapshot(upload).catch(() => undefined);
    let received: Parsed<Received>;
    try {
      const paced = await deps.pacer.read(req, declared === null ? null : Number(declared), (body) => receive(req, upload, request.value.contentType, max, body));
      received = paced === TOO_SLOW ? tooSlow(deps.pacer) : paced;
      if (received.ok) await upload.end();
    } catch (error) {
      await discard();
      throw error;
    }
    if (!received.ok) {
      await discard();
      return renderError(received.error);
    }
    const outcome = await deps.store.publishSnapshot(path.key, upload, request.value, received.value.digest, received.value.mentionsBoundary);
    if (isProtocolError(outcome)) return renderError(await withNearestBoundaries(deps.store, path.key, targetOffset(request.value.target), outcome));
    const h = snapshotHeaders(outcome.state, outcome.snapshot);
    h.set(H.nextOffset, formatOffset(outcome.state.tail));
    return new Response(null, { status: 204, headers: h });
  } finally {
    hold.release();
  }
}

function parsePublish(req: Request, arg: string | null): Parsed<PublishRequest> {
  const target = parseResourceTarget(arg, req.url);
  if (!target.ok) return target;
  const incarnation = parseIncarnationHeader(req.headers);
  if (!incarnation.ok) return incarnation;
  const rawType = req.headers.get(H.contentType);
  let contentType = DEFAULT_CONTENT_TYPE;
  if (rawType !== null) {
    if (rawType.trim() === "") return fail("INVALID_SNAPSHOT", "a snapshot's Content-Type may be left out (application/octet-stream), not blank");
    const parsed = parseContentType(rawType);
    if (!parsed.ok) return parsed;
    contentType = parsed.value;
  }
  const rawMatch = req.headers.get(H.snapshotMatch);
  const match = rawMatch === null ? null : rawMatch.trim();
  if (match === "") return fail("INVALID_SNAPSHOT", "Stream-Snapshot-Match is empty; send the digest of the visible snapshot");
  return ok({ target: target.value, contentType, match, incarnation: incarnation.value });
}

const tooLarge = (max: number) => renderError(protocolError("PAYLOAD_TOO_LARGE", `a snapshot is at most ${max} bytes`));

interface Received {
  digest: string;
  mentionsBoundary: boolean;
}

/**
 * Streams the body into `upload`, hashing it and noting whether it holds the bootstrap boundary's
 * prefix. A body cut for its pace (`paced.cut`) ends the read; the caller discards the upload.
 */
async function receive(req: Request, upload: SnapshotUpload, contentType: string, max: number, paced: PacedBody): Promise<Parsed<Received>> {
  const digest = await snapshotDigest(contentType);
  const scanner = new NeedleScanner(boundaryPrefix);
  let size = 0;
  if (req.body !== null) {
    const reader = req.body.getReader();
    paced.inChunks(() => void reader.cancel().catch(() => undefined));
    for (;;) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch {
        return fail("BAD_REQUEST", "the request body ended before it was complete");
      }
      if (next.done || paced.cut) break;
      const piece = next.value;
      paced.count(piece.length);
      size += piece.length;
      if (size > max) {
        await reader.cancel().catch(() => undefined);
        return fail("PAYLOAD_TOO_LARGE", `a snapshot is at most ${max} bytes`);
      }
      digest.update(piece);
      scanner.feed(piece);
      await upload.write(piece);
    }
  }
  return ok({ digest: digest.digest(), mentionsBoundary: scanner.found });
}

function snapshotHeaders(state: StreamState, snapshot: SnapshotMeta): Headers {
  const h = baseHeaders();
  h.set(H.snapshotOffset, formatOffset(snapshot.offset));
  h.set(H.snapshotDigest, snapshot.digest);
  h.set(H.incarnation, state.incarnation);
  return h;
}

/** What a snapshot read says about replay: it continues at the snapshot's offset (spec §2.15). */
function replayHeaders(h: Headers, state: StreamState, snapshot: SnapshotMeta): void {
  h.set(H.nextOffset, formatOffset(snapshot.offset));
  if (snapshot.offset === state.tail) {
    h.set(H.upToDate, "true");
    if (state.closed) h.set(H.closed, "true");
  }
}

export async function latestSnapshot(deps: AppDeps, req: Request, path: StreamPath, head: boolean): Promise<Response> {
  const incarnation = parseIncarnationHeader(req.headers);
  if (!incarnation.ok) return renderError(incarnation.error);
  const found = decideSnapshotRead(await deps.store.get(path.key), null, incarnation.value);
  if (found.kind === "error") return renderError(found);
  if (!head) await deps.store.renewTtl(path.key);
  const h = snapshotHeaders(found.state, found.snapshot);
  replayHeaders(h, found.state, found.snapshot);
  const location = `/${path.bucket}/${encodeURIComponent(path.name)}/snapshot/${formatOffset(found.snapshot.offset)}`;
  h.set(H.location, new URL(location, req.url).href);
  return new Response(null, { status: 307, headers: h });
}

export async function readSnapshot(deps: AppDeps, req: Request, path: StreamPath, arg: string, head: boolean): Promise<Response> {
  const offset = parseOffsetSegment(arg);
  if (!offset.ok) return renderError(offset.error);
  const incarnation = parseIncarnationHeader(req.headers);
  if (!incarnation.ok) return renderError(incarnation.error);
  const found = decideSnapshotRead(await deps.store.get(path.key), offset.value, incarnation.value);
  if (found.kind === "error") return renderError(found);
  const { state, snapshot } = found;
  const h = snapshotHeaders(state, snapshot);
  replayHeaders(h, state, snapshot);
  h.set(H.contentType, snapshot.contentType);
  if (head) return new Response(null, { status: 200, headers: h });
  // Pinned right after the state was read, before anything else is awaited: with SQLite no
  // transaction runs in between (the awaits resume before group commit's next turn), so a newer
  // publish cannot delete these bytes while they stream out.
  const reader = await deps.store.openSnapshot(snapshot);
  await deps.store.renewTtl(path.key);
  return new Response(snapshotBody(reader, req.signal), { status: 200, headers: h });
}

/** The blob's chunks, each read once the one before is written (a chunk's bytes may be reused then). */
function snapshotBody(reader: SnapshotReader, signal: AbortSignal): ReadableStream<Uint8Array> {
  return writtenOut(
    async (out) => {
      for (let i = 0; i < reader.chunks; i++) {
        const written = out.put(await reader.chunk(i));
        if (written !== true) await written;
      }
    },
    () => reader.release(),
    signal,
  );
}

export async function deleteSnapshot(deps: AppDeps, req: Request, path: StreamPath, arg: string): Promise<Response> {
  const offset = parseOffsetSegment(arg);
  if (!offset.ok) return renderError(offset.error);
  const incarnation = parseIncarnationHeader(req.headers);
  if (!incarnation.ok) return renderError(incarnation.error);
  return renderError(decideSnapshotDelete(await deps.store.get(path.key), offset.value, incarnation.value));
}
