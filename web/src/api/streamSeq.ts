// Stream-Seq helpers, each a rule of Ursula v0.9.0, Conditional Writes (§How Stream-Seq is
// checked; spec §5.2):
// bytewise comparison, zero-padding to a fixed width, printable ASCII only, 256-byte cap.

export const SEQ_WIDTH = 20;
export const SEQ_MAX_BYTES = 256;

/** Zero-pad a count to the fixed width Conditional Writes recommends (20 digits). */
export function padSeq(n: number | bigint, width = SEQ_WIDTH): string {
  return String(n).padStart(width, "0");
}

/** -1, 0, 1 by unsigned byte order, which is what the server compares. */
export function compareBytewise(a: string, b: string): number {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  const len = Math.min(x.length, y.length);
  for (let i = 0; i < len; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
}

/** Index of the first byte where a and b differ (or the shorter length); -1 if equal. */
export function firstDifference(a: string, b: string): number {
  const len = Math.min(a.length, b.length);
  for (let i = 0; i < len; i++) if (a.charCodeAt(i) !== b.charCodeAt(i)) return i;
  return a.length === b.length ? -1 : len;
}

/** Positions of characters outside printable ASCII 0x20–0x7E: any one makes the server ignore the header. */
export function nonPrintable(value: string): number[] {
  const bad: number[] = [];
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) bad.push(i);
  }
  return bad;
}

export function byteLength(value: string): number {
  return new TextEncoder().encode(value).length;
}

export type SeqVerdict =
  | { kind: "ok" }
  | { kind: "ignored"; positions: number[] }
  | { kind: "too-long"; bytes: number }
  | { kind: "not-fixed-width"; width: number };

/** What the server will do with this header value (before comparing it with the stored one). */
export function judgeSeq(value: string, width = SEQ_WIDTH): SeqVerdict {
  const bytes = byteLength(value);
  if (bytes > SEQ_MAX_BYTES) return { kind: "too-long", bytes };
  const bad = nonPrintable(value);
  if (bad.length) return { kind: "ignored", positions: bad };
  if (/^\d+$/.test(value) && value.length !== width) return { kind: "not-fixed-width", width: value.length };
  return { kind: "ok" };
}

/** For a digits-only value: the next value of the same width ("0041" → "0042"). */
export function incrementSeq(value: string): string | undefined {
  if (!/^\d+$/.test(value)) return undefined;
  return padSeq(BigInt(value) + 1n, value.length);
}
