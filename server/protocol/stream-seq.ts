// Stream-Seq, the compare-and-set on a writer-chosen value (spec §5.2) [CW].

import { fail, ok, type Parsed } from "./errors";

export const MAX_STREAM_SEQ_BYTES = 256;

/** null means "no check, nothing stored": the header was absent, blank, or not printable ASCII. */
export function parseStreamSeq(raw: string | null): Parsed<string | null> {
  if (raw === null) return ok(null);
  const value = raw.trim();
  if (value.length === 0) return ok(null);
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    // [CW] a value with any byte outside printable ASCII is ignored, never rejected.
    if (c < 0x20 || c > 0x7e) return ok(null);
  }
  // Printable ASCII is one byte a character, so the length is the byte count.
  if (value.length > MAX_STREAM_SEQ_BYTES) {
    return fail("INVALID_STREAM_SEQ", `Stream-Seq is ${value.length} bytes; at most ${MAX_STREAM_SEQ_BYTES} are allowed`);
  }
  return ok(value);
}

/**
 * Bytewise strictly-greater: "10" < "9". JavaScript compares strings by UTF-16 code unit, which is
 * bytewise for the printable ASCII that parseStreamSeq lets through.
 */
export function streamSeqAccepts(stored: string | null, incoming: string): boolean {
  return stored === null || incoming > stored;
}
