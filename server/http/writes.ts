// PUT, POST and DELETE on a stream (spec §2.5, §2.6, §2.9): parse, let the store decide inside
// its transaction, and render the tagged result.

import type { AppendDecision } from "../protocol/append";
import { isProtocolError } from "../protocol/errors";
import { formatRfc3339 } from "../protocol/lifetime";
import { formatOffset } from "../protocol/offsets";
import type { BodyHold } from "./body-budget";
import type { AppDeps } from "./deps";
import { renderError } from "./error-map";
import { readBody } from "./body";
import { baseHeaders, H } from "./headers";
import { streamUrlPath, type StreamPath } from "../protocol/paths";
import { parseAppend, parseCreate, parseIncarnationHeader } from "./write-requests";

// A body counts against the server's budget until its write is decided: it is held in memory that long.
export async function createStream(deps: AppDeps, req: Request, path: StreamPath): Promise<Response> {
  const hold = deps.bodies.hold();
  try {
    return await create(deps, req, path, hold);
  } finally {
    hold.release();
  }
}

export async function appendToStream(deps: AppDeps, req: Request, path: StreamPath): Promise<Response> {
  const hold = deps.bodies.hold();
  try {
    // The body is read here rather than inside parseAppend: one async frame fewer per append.
    const body = await readBody(req, deps.limits.maxBodyBytes, hold, deps.pacer);
    const parsed = body.ok ? parseAppend(req.headers, body.value) : body;
    if (!parsed.ok) return renderError(parsed.error);
    return renderAppend(await deps.store.append(path.key, parsed.value));
  } finally {
    hold.release();
  }
}

async function create(deps: AppDeps, req: Request, path: StreamPath, hold: BodyHold): Promise<Response> {
  const parsed = await parseCreate(req, path, deps.limits.maxBodyBytes, hold, deps.pacer);
  if (!parsed.ok) return renderError(parsed.error);
  const outcome = await deps.store.create(path.key, parsed.value);
  if (isProtocolError(outcome)) return renderError(outcome);
  const s = outcome.state;
  // A create's first messages are no append the store tells its listeners of; subscriptions hear of them here.
  if (outcome.kind === "created" && s.tail > 0) deps.subscriptions?.created(path.bucket, path.name);
  const h = baseHeaders();
  h.set(H.contentType, s.contentType);
  h.set(H.nextOffset, formatOffset(s.tail));
  h.set(H.incarnation, s.incarnation);
  h.set(H.location, new URL(streamUrlPath(path), req.url).href);
  if (s.closed) h.set(H.closed, "true");
  if (s.ttlSeconds !== null) h.set(H.ttl, String(s.ttlSeconds));
  if (s.expiresAtMs !== null) h.set(H.expiresAt, formatRfc3339(s.expiresAtMs));
  const producer = parsed.value.producer;
  if (producer && outcome.kind === "created") echoProducer(h, producer.epoch, producer.seq);
  return new Response(null, { status: outcome.kind === "created" ? 201 : 200, headers: h });
}

function renderAppend(d: AppendDecision): Response {
  if (d.kind === "error") return renderError(d);
  const h = baseHeaders();
  h.set(H.incarnation, d.incarnation);
  switch (d.kind) {
    case "duplicate":
      echoProducer(h, d.epoch, d.lastSeq);
      if (d.nextOffset !== null) h.set(H.nextOffset, formatOffset(d.nextOffset));
      if (d.closed) h.set(H.closed, "true");
      return new Response(null, { status: 204, headers: h });
    case "already_closed":
      h.set(H.nextOffset, formatOffset(d.tail));
      h.set(H.closed, "true");
      if (d.producer) echoProducer(h, d.producer.epoch, d.producer.seq);
      return new Response(null, { status: 204, headers: h });
    case "accepted": {
      const e = d.effect;
      h.set(H.nextOffset, formatOffset(e.start + e.bytes));
      if (e.close) h.set(H.closed, "true");
      if (e.producer) echoProducer(h, e.producer.epoch, e.producer.seq);
      // 200 only for an append that carried producer headers (spec §2.6).
      const status = e.producer && e.messages.length > 0 ? 200 : 204;
      return new Response(null, { status, headers: h });
    }
  }
}

function echoProducer(h: Headers, epoch: number, seq: number): void {
  h.set(H.producerEpoch, String(epoch));
  h.set(H.producerSeq, String(seq));
}

export async function deleteStream(deps: AppDeps, req: Request, path: StreamPath): Promise<Response> {
  const incarnation = parseIncarnationHeader(req.headers);
  if (!incarnation.ok) return renderError(incarnation.error);
  const outcome = await deps.store.delete(path.key, incarnation.value);
  if (isProtocolError(outcome)) return renderError(outcome);
  // [CW] DELETE is the one success that carries no Stream-Incarnation.
  return new Response(null, { status: 204, headers: baseHeaders() });
}
