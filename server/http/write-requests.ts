// Parsing of PUT and POST into protocol requests (spec §5.1 Phase A): syntax only, no stream
// state, and the first failure wins.

import type { AppendRequest } from "../protocol/append";
import { parseAttrs } from "../protocol/attrs";
import { DEFAULT_CONTENT_TYPE, isJsonType, parseContentType } from "../protocol/content-type";
import type { CreateRequest, ForkRequest } from "../protocol/create";
import { fail, ok, type Parsed } from "../protocol/errors";
import { parseIncarnationToken } from "../protocol/incarnation";
import { jsonMessages } from "../protocol/json-body";
import { parseLifetime } from "../protocol/lifetime";
import { parseOffsetToken } from "../protocol/offsets";
import { parseProducer, type ProducerTuple } from "../protocol/producer";
import { parseStreamSeq } from "../protocol/stream-seq";
import { readBody } from "./body";
import type { BodyHold } from "./body-budget";
import type { BodyPacer } from "./body-pace";
import { flag, H, headerText } from "./headers";
import { parseStreamUrlPath, type StreamPath } from "../protocol/paths";

/** The token as sent, compared for equality later; only what no header may carry is a 400 (spec §5.4). */
export function parseIncarnationHeader(headers: Headers): Parsed<string | null> {
  const raw = headers.get(H.incarnation);
  return raw === null ? ok(null) : parseIncarnationToken(raw.trim());
}

interface Guards {
  producer: ProducerTuple | null;
  streamSeq: string | null;
  incarnation: string | null;
}

/** The write guards every write path parses the same way, in the order of spec §5.1 Phase A. */
function parseGuards(h: Headers): Parsed<Guards> {
  const producer = parseProducer(h.get(H.producerId), h.get(H.producerEpoch), h.get(H.producerSeq));
  if (!producer.ok) return producer;
  const streamSeq = parseStreamSeq(h.get(H.seq));
  if (!streamSeq.ok) return streamSeq;
  const incarnation = parseIncarnationHeader(h);
  if (!incarnation.ok) return incarnation;
  return ok({ producer: producer.value, streamSeq: streamSeq.value, incarnation: incarnation.value });
}

/** A POST's headers and its body, already read (readBody). */
export function parseAppend(h: Headers, body: Uint8Array): Parsed<AppendRequest> {
  const guards = parseGuards(h);
  if (!guards.ok) return guards;
  const { producer, streamSeq, incarnation } = guards.value;
  const close = flag(h.get(H.closed));
  if (body.length === 0) {
    if (!close) return fail("EMPTY_APPEND", "an append needs a body; send Stream-Closed: true to close without one");
    // A close-only request ignores its Content-Type entirely (spec §5.5).
    return ok({ contentType: null, messages: [], close, producer, streamSeq, incarnation });
  }
  const rawType = h.get(H.contentType);
  if (rawType === null || rawType.trim() === "") return fail("MISSING_CONTENT_TYPE", "an append with a body needs a Content-Type");
  const contentType = parseContentType(rawType);
  if (!contentType.ok) return contentType;
  let messages: Uint8Array[] = [body];
  if (isJsonType(contentType.value)) {
    const parsed = jsonMessages(body, false);
    if (!parsed.ok) return parsed;
    messages = parsed.value;
  }
  return ok({ contentType: contentType.value, messages, close, producer, streamSeq, incarnation });
}

const SUB_OFFSET = /^(0|[1-9][0-9]*)$/;

function parseFork(h: Headers): Parsed<ForkRequest | null> {
  const from = h.get(H.forkedFrom);
  const offsetRaw = h.get(H.forkOffset);
  const subRaw = h.get(H.forkSubOffset);
  if (from === null) {
    if (subRaw !== null || offsetRaw !== null) return fail("INVALID_FORK", "fork offsets need Stream-Forked-From");
    return ok(null);
  }
  // Bun reads raw octets in a request path as UTF-8; the same path typed into this header must name the same stream.
  const source = parseStreamUrlPath(headerText(from).trim());
  if (!source.ok) return fail("INVALID_FORK", `Stream-Forked-From: ${source.error.message}`);
  let offset: number | null = null;
  if (offsetRaw !== null) {
    const parsed = parseOffsetToken(offsetRaw.trim(), false);
    if (!parsed.ok || parsed.value.kind !== "position") return fail("INVALID_FORK", "Stream-Fork-Offset must be an offset this server issued");
    offset = parsed.value.position;
  }
  let subOffset: number | null = null;
  if (subRaw !== null) {
    const value = subRaw.trim();
    if (!SUB_OFFSET.test(value) || Number(value) > Number.MAX_SAFE_INTEGER) {
      return fail("INVALID_FORK", "Stream-Fork-Sub-Offset must be a non-negative integer without sign or leading zeros");
    }
    subOffset = Number(value);
    if (subOffset > 0 && offset === null) return fail("INVALID_FORK", "a non-zero Stream-Fork-Sub-Offset needs Stream-Fork-Offset");
  }
  return ok({ sourceKey: source.value.key, offset, subOffset });
}

export async function parseCreate(req: Request, path: StreamPath, maxBodyBytes: number, hold: BodyHold, pacer: BodyPacer): Promise<Parsed<CreateRequest>> {
  const h = req.headers;
  const body = await readBody(req, maxBodyBytes, hold, pacer);
  if (!body.ok) return body;
  const rawType = h.get(H.contentType);
  let contentType: string | null = null;
  if (rawType !== null && rawType.trim() !== "") {
    const parsed = parseContentType(rawType);
    if (!parsed.ok) return parsed;
    contentType = parsed.value;
  }
  const lifetime = parseLifetime(h.get(H.ttl), h.get(H.expiresAt));
  if (!lifetime.ok) return lifetime;
  let attrs: string | null = null;
  const rawAttrs = h.get(H.attrs);
  if (rawAttrs !== null) {
    const parsed = parseAttrs(headerText(rawAttrs));
    if (!parsed.ok) return parsed;
    attrs = parsed.value;
  }
  const guards = parseGuards(h);
  if (!guards.ok) return guards;
  const fork = parseFork(h);
  if (!fork.ok) return fork;
  // Without a fork the type is known now, so a bad JSON body is a syntax error like any other.
  if (fork.value === null && body.value.length > 0 && isJsonType(contentType ?? DEFAULT_CONTENT_TYPE)) {
    const messages = jsonMessages(body.value, true);
    if (!messages.ok) return messages;
  }
  return ok({
    bucket: path.bucket,
    name: path.name,
    contentType,
    lifetime: lifetime.value,
    close: flag(h.get(H.closed)),
    ...guards.value,
    body: body.value,
    attrs,
    fork: fork.value,
  });
}
