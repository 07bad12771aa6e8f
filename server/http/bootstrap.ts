// GET /{bucket}/{stream}/bootstrap (spec §2.18): one multipart/mixed answer holding the snapshot
// and the messages after it, streamed out as the client takes it. What it holds is read by the
// read executor (read-executor.ts runBootstrap): the snapshot pinned with the state, so a newer
// publish or retention while it streams changes nothing of it, and the messages (at most 8 MiB and
// a message) in steps, so a retention that commits meanwhile can only end them early, and
// Stream-Next-Offset says where they end.

import { bootstrapEnd } from "../protocol/bootstrap";
import { DEFAULT_CONTENT_TYPE, isJsonType } from "../protocol/content-type";
import { isProtocolError, protocolError } from "../protocol/errors";
import { formatOffset } from "../protocol/offsets";
import type { SnapshotReader } from "../storage/store";
import type { AppDeps } from "./deps";
import { renderError } from "./error-map";
import { baseHeaders, H } from "./headers";
import { closeDelimiter, contains, NeedleScanner, PART_END, partHead, randomBoundary } from "./multipart";
import type { StreamPath } from "../protocol/paths";
import { runBootstrap } from "./read-executor";
import { PieceWriter, writtenOut } from "./stream-out";
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
  const read = await runBootstrap(deps.store, path.key, incarnation.value, head);
  if (isProtocolError(read)) return renderError(read);
  const { state, snapshot: reader, messages: slice } = read;
  const end = bootstrapEnd(state, slice.end);
  // A JSON message is stored with its LF; its part is the message text alone.
  const messages = isJsonType(state.contentType) ? slice.chunks.map((m) => m.subarray(0, m.length - 1)) : slice.chunks;
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

/**
 * The body in order: the snapshot part chunk by chunk (each read once the one before is written),
 * then a part per message. Framing and small messages are copied together into the writer's
 * buffer; a large message or chunk is written as it is, never copied into the framing.
 */
function bootstrapBody(p: Parts, snapshot: SnapshotReader | null, signal: AbortSignal): ReadableStream<Uint8Array> {
  const release = () => snapshot?.release();
  return writtenOut(
    async (out) => {
      await put(out, partHead(p.boundary, p.snapshotType));
      for (let i = 0; snapshot !== null && i < snapshot.chunks; i++) await put(out, await snapshot.chunk(i));
      release();
      await put(out, PART_END);
      const head = partHead(p.boundary, p.contentType);
      for (const m of p.messages) {
        let written = out.put(head);
        if (written !== true) await written;
        written = out.put(m);
        if (written !== true) await written;
        written = out.put(PART_END);
        if (written !== true) await written;
      }
      await put(out, closeDelimiter(p.boundary));
    },
    release,
    signal,
  );
}

async function put(out: PieceWriter, piece: Uint8Array): Promise<void> {
  const written = out.put(piece);
  if (written !== true) await written;
}
