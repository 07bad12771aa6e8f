// POST /{bucket}/{stream}/append-batch (spec §2.10): length-framed appends, one ack per frame.
// The guards of a single append have no per-frame form here, so they are refused rather than
// dropped: a silently ignored Stream-Seq would defeat the compare-and-set of
// Ursula v0.9.0, Conditional Writes.

import { frameMessages, MAX_BATCH_BYTES, parseFrames, type FrameAck } from "../protocol/append-batch";
import { parseContentType } from "../protocol/content-type";
import { fail, isProtocolError, ok, type Parsed } from "../protocol/errors";
import { formatOffset } from "../protocol/offsets";
import type { BatchRequest } from "../storage/store";
import { readBody } from "./body";
import type { AppDeps } from "./deps";
import { renderError, statusOf } from "./error-map";
import { baseHeaders, H } from "./headers";
import type { StreamPath } from "../protocol/paths";
import { parseIncarnationHeader } from "./write-requests";

const GUARDS = [H.seq, H.closed, H.producerId, H.producerEpoch, H.producerSeq, H.recordMatch];

export async function appendBatch(deps: AppDeps, req: Request, path: StreamPath): Promise<Response> {
  const hold = deps.bodies.hold();
  try {
    const headers = parseBatchHeaders(req.headers);
    if (!headers.ok) return renderError(headers.error);
    const body = await readBody(req, Math.min(deps.limits.maxBodyBytes, MAX_BATCH_BYTES), hold, deps.pacer);
    if (!body.ok) return renderError(body.error);
    const frames = parseFrames(body.value);
    if (!frames.ok) return renderError(frames.error);
    const messages = frameMessages(frames.value, headers.value.contentType);
    if (!messages.ok) return renderError(messages.error);
    const outcome = await deps.store.appendBatch(path.key, { ...headers.value, frames: messages.value });
    if (isProtocolError(outcome)) return renderError(outcome);
    const h = baseHeaders();
    h.set(H.incarnation, outcome.state.incarnation);
    h.set(H.nextOffset, formatOffset(outcome.state.tail));
    if (outcome.state.closed) h.set(H.closed, "true");
    if (headers.value.minimal && outcome.acks.every((a) => a.ok)) return new Response(null, { status: 204, headers: h });
    h.set(H.contentType, "application/json");
    return new Response(renderAcks(outcome.acks), { status: 200, headers: h });
  } finally {
    hold.release();
  }
}

function parseBatchHeaders(h: Headers): Parsed<Omit<BatchRequest, "frames"> & { minimal: boolean }> {
  const incarnation = parseIncarnationHeader(h);
  if (!incarnation.ok) return incarnation;
  const guard = GUARDS.find((name) => h.has(name));
  if (guard !== undefined) {
    return fail("UNSUPPORTED_HEADER", `${guard} is not supported on append-batch: a batch's frames are separate appends; send guarded appends with POST`);
  }
  const rawType = h.get(H.contentType);
  if (rawType === null || rawType.trim() === "") return fail("MISSING_CONTENT_TYPE", "a batch needs the Content-Type of its frames");
  const contentType = parseContentType(rawType);
  if (!contentType.ok) return contentType;
  const minimal = (h.get(H.prefer) ?? "").split(",").some((p) => p.trim().toLowerCase() === "return=minimal");
  return ok({ contentType: contentType.value, incarnation: incarnation.value, minimal });
}

/** The acks in request order (spec §2.10): built as text, one short object per frame. */
function renderAcks(acks: FrameAck[]): string {
  let out = "[";
  for (let i = 0; i < acks.length; i++) {
    const a = acks[i]!;
    if (i > 0) out += ",";
    if (a.ok) {
      out += `{"status":204,"stream_next_offset":"${formatOffset(a.nextOffset)}"}`;
      continue;
    }
    const failed: Record<string, unknown> = {
      status: statusOf(a.error),
      error_code: a.error.code,
      error: a.error.message,
      stream_next_offset: formatOffset(a.nextOffset),
    };
    if (a.closed) failed.stream_closed = true;
    out += JSON.stringify(failed);
  }
  return out + "]";
}
