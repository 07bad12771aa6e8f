// Stream-Incarnation (spec §5.4) [CW]: one shared check, so every endpoint that addresses a
// stream honours the header the same way. The token is opaque to clients and compared for
// equality: a token ursa never issued (a made-up string, one from another server) names no
// incarnation of this stream, which is a 412, not a malformed request.

import { fail, ok, protocolError, type Parsed, type ProtocolError } from "./errors";

/** Longer than any token ursa issues (20 digits) by far; the spec's bound for opaque header values. */
export const MAX_INCARNATION_BYTES = 256;

/**
 * The header's value as sent. Only what no header can carry is malformed: a control character
 * (HTAB aside), a character beyond one octet, or more than MAX_INCARNATION_BYTES.
 */
export function parseIncarnationToken(value: string): Parsed<string> {
  if (value.length > MAX_INCARNATION_BYTES) {
    return fail("BAD_REQUEST", `Stream-Incarnation is longer than ${MAX_INCARNATION_BYTES} bytes`);
  }
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || c === 0x7f || c > 0xff) {
      return fail("BAD_REQUEST", "Stream-Incarnation holds a character no HTTP header may carry");
    }
  }
  return ok(value);
}

export function incarnationMismatch(current: { incarnation: string; tail: number }, sent: string | null): ProtocolError | null {
  if (sent === null || sent === current.incarnation) return null;
  // Only what is known: the token is not the current one. It may name an incarnation that ended,
  // or one that never existed here.
  return protocolError(
    "STREAM_INCARNATION_MISMATCH",
    `Stream-Incarnation ${JSON.stringify(sent)} does not name the current incarnation ${current.incarnation} of this stream`,
    { incarnation: current.incarnation, nextOffset: current.tail },
  );
}

/** Strictly increasing across the server and never reused, even across restarts (spec §1.8). */
export function nextIncarnation(lastIssued: number, nowMs: number): number {
  return Math.max(nowMs, lastIssued + 1);
}
