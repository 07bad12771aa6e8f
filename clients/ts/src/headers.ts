// Header names, the read position sentinels and the zero-padded Stream-Seq every recipe sends.
// One place spells them, so the rest of the package reads as the protocol does.

export const HEADER = {
  authorization: "Authorization",
  contentType: "Content-Type",
  nextOffset: "Stream-Next-Offset",
  upToDate: "Stream-Up-To-Date",
  closed: "Stream-Closed",
  seq: "Stream-Seq",
  lastSeq: "Stream-Last-Seq",
  incarnation: "Stream-Incarnation",
  ttl: "Stream-TTL",
  expiresAt: "Stream-Expires-At",
  producerId: "Producer-Id",
  producerEpoch: "Producer-Epoch",
  producerSeq: "Producer-Seq",
  expectedSeq: "Producer-Expected-Seq",
  receivedSeq: "Producer-Received-Seq",
  snapshotOffset: "Stream-Snapshot-Offset",
  snapshotDigest: "Stream-Snapshot-Digest",
  snapshotMatch: "Stream-Snapshot-Match",
  earliestOffset: "Stream-Earliest-Offset",
  retainedOffset: "Stream-Retained-Offset",
  sseEncoding: "Stream-SSE-Data-Encoding",
  sseContentType: "Stream-Data-Content-Type",
} as const;

/** The read position of a stream's first byte (offset=-1). */
export const STREAM_START = "-1";

/**
 * Ursula v0.9.0, Conditional Writes, "How Stream-Seq is checked": "The comparison is bytewise, not
 * numeric: "10" sorts before "9". Use fixed-width values, such as a counter zero-padded to 20
 * digits." 20 digits hold any JavaScript safe integer and stay far below the 256-byte limit.
 */
export const SEQ_WIDTH = 20;

/**
 * A counter as a Stream-Seq value: zero-padded to {@link SEQ_WIDTH} digits, so the server's
 * bytewise comparison orders it as the number it is. Prevents an unpadded "10" losing to "9".
 */
export function padSeq(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`a Stream-Seq counter must be a non-negative safe integer, got ${n}`);
  return String(n).padStart(SEQ_WIDTH, "0");
}

/** The inverse of padSeq, for values a counter wrote (Stream-Last-Seq echoes one of them). */
export function parseSeq(value: string): number {
  if (!/^[0-9]{1,20}$/.test(value)) throw new RangeError(`not a zero-padded counter: ${JSON.stringify(value)}`);
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`counter out of range: ${value}`);
  return n;
}
