// Request bodies, with the size limit enforced while the body streams in (spec §2.0), so a
// chunked upload cannot grow past it either, and every byte counted against the server-wide
// budget for bodies in memory (body-budget.ts) as it arrives. A declared Content-Length takes
// nothing from the budget before its bytes do: connections that declare 32 MiB and send nothing
// must not turn every other write away (they hold a connection each, which the connection caps
// bound, until they fall behind the pace of body-pace.ts).

import { fail, ok, type Parsed } from "../protocol/errors";
import type { BodyHold } from "./body-budget";
import { TOO_SLOW, type BodyPacer, type PacedBody } from "./body-pace";
import { H } from "./headers";

const EMPTY = new Uint8Array(0);

/**
 * The client closed the connection or broke the chunked framing before the body was whole: its
 * fault, not ours, and nothing of it is committed.
 */
const cutShort = () => fail("BAD_REQUEST", "the request body ended before it was complete");
const overBudget = () => fail("INGRESS_BODY_BYTES_LIMIT", "the server holds as many request bodies as it may; retry shortly");
const tooLarge = (maxBytes: number) => fail("PAYLOAD_TOO_LARGE", `request body is larger than ${maxBytes} bytes`);

/**
 * Declared bodies up to this size are read whole with arrayBuffer(), the fast path every small
 * append takes, and counted once whole: they arrive in a packet or two. Larger ones are read
 * chunk by chunk and counted chunk by chunk.
 */
export const WHOLE_BODY_BYTES = 64 * 1024;

export async function readBody(req: Request, maxBytes: number, hold: BodyHold, pacer: BodyPacer): Promise<Parsed<Uint8Array>> {
  const declared = req.headers.get(H.contentLength);
  let length: number | null = null;
  if (declared !== null) {
    length = Number(declared);
    // Bun's parser refuses a malformed Content-Length; this keeps the budget's sums whole anyway.
    if (!Number.isSafeInteger(length) || length < 0) return fail("BAD_REQUEST", "Content-Length is not a byte count");
    if (length > maxBytes) return tooLarge(maxBytes);
    // A body that could not fit once whole is refused before any of it is read.
    if (!hold.fits(length)) return overBudget();
  }
  const read = await pacer.read(req, length, (body) => (length !== null && length <= WHOLE_BODY_BYTES ? whole(req, maxBytes, hold) : inChunks(req, maxBytes, hold, body)));
  return read === TOO_SLOW ? tooSlow(pacer) : read;
}

/** Straight to bytes: touching req.body first would build a stream object for nothing. */
async function whole(req: Request, maxBytes: number, hold: BodyHold): Promise<Parsed<Uint8Array>> {
  let bytes: ArrayBuffer;
  try {
    bytes = await req.arrayBuffer();
  } catch {
    return cutShort();
  }
  if (bytes.byteLength > maxBytes) return tooLarge(maxBytes);
  return hold.take(bytes.byteLength) ? ok(new Uint8Array(bytes)) : overBudget();
}

async function inChunks(req: Request, maxBytes: number, hold: BodyHold, paced: PacedBody): Promise<Parsed<Uint8Array>> {
  if (req.body === null) return ok(EMPTY);
  const parts: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  paced.inChunks(() => void reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      paced.count(value.length);
      size += value.length;
      if (size > maxBytes || !hold.take(value.length)) {
        await reader.cancel();
        return size > maxBytes ? tooLarge(maxBytes) : overBudget();
      }
      parts.push(value);
    }
  } catch {
    return cutShort();
  }
  if (parts.length === 1) return ok(parts[0]!);
  const body = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    body.set(p, at);
    at += p.length;
  }
  return ok(body);
}

export function tooSlow(pacer: BodyPacer): Parsed<never> {
  const { minBytesPerSecond, windowMs } = pacer.limits;
  return fail("BODY_TOO_SLOW", `the request body arrived more slowly than ${minBytesPerSecond} bytes/s after its first ${windowMs / 1000} s (--min-body-rate, --body-rate-window); nothing of it was kept`);
}
