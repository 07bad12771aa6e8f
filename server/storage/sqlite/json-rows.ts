// From schema version 9, one log row of a JSON stream holds all the messages of one append, in
// order (up to ROW_BYTES of them), each a compact JSON text ending in its LF (protocol/json-body.ts). Compact JSON escapes
// every LF inside a string, so a row's message boundaries are the bytes that follow its LFs, and
// no lengths need storing. Rows written before version 9, and the rows of byte streams, hold one
// message each, which these functions read the same way.
//
// Why: a catch-up of small messages stepped one SQLite row per message, and bun:sqlite's per-row
// cost bounded it; an append of 5,000 messages is now one row (docs/design/message-log.md).

const LF = 0x0a;

/** Where the message of a JSON row that starts at byte `at` of it ends (just past its LF). */
export function messageEnd(data: Uint8Array, at: number): number {
  const lf = data.indexOf(LF, at);
  return lf < 0 ? data.length : lf + 1;
}

/** Where the message of a JSON row that holds byte `at` of it starts. */
export function messageStartAt(data: Uint8Array, at: number): number {
  if (at <= 0) return 0;
  return data.lastIndexOf(LF, at - 1) + 1;
}

/** Whether byte `at` of a JSON row is where one of its messages starts. */
export function startsMessage(data: Uint8Array, at: number): boolean {
  return at === 0 || (at < data.length && data[at - 1] === LF);
}

/** How many whole messages the bytes of a JSON row, or of a part of one that ends at a boundary, hold. */
export function countMessages(data: Uint8Array): number {
  let n = 0;
  for (let at = data.indexOf(LF); at >= 0; at = data.indexOf(LF, at + 1)) n++;
  return n;
}

/** The lengths of the messages of a JSON row from byte `from` (a boundary) up to byte `to`. */
export function messageLengths(data: Uint8Array, from = 0, to = data.length): number[] {
  const lengths: number[] = [];
  for (let at = from; at < to; ) {
    const end = messageEnd(data, at);
    lengths.push(end - at);
    at = end;
  }
  return lengths;
}

/**
 * Up to this many bytes of one append's messages share a row; a larger message has one alone.
 * Why a bound: bun:sqlite copies a blob whole, so a read that starts inside a row copies all of
 * it, and a catch-up in READ_STEP_BYTES steps through one 32 MiB row would copy it 64 times.
 */
export const ROW_BYTES = 64 * 1024;

/** The rows one JSON append's messages are stored as, in order, and how many messages each holds. */
export function packRows(messages: readonly Uint8Array[], maxBytes = ROW_BYTES): { data: Uint8Array; count: number }[] {
  const rows: { data: Uint8Array; count: number }[] = [];
  for (let i = 0; i < messages.length; ) {
    let size = messages[i]!.length;
    let j = i + 1;
    while (j < messages.length && size + messages[j]!.length <= maxBytes) size += messages[j++]!.length;
    rows.push({ data: concat(messages, i, j, size), count: j - i });
    i = j;
  }
  return rows;
}

function concat(messages: readonly Uint8Array[], from: number, to: number, size: number): Uint8Array {
  if (to - from === 1) return messages[from]!;
  const data = new Uint8Array(size);
  for (let at = 0, i = from; i < to; i++) {
    data.set(messages[i]!, at);
    at += messages[i]!.length;
  }
  return data;
}

/**
 * The whole messages of JSON rows (in offset order, the first holding `start`, a boundary) from
 * `start` up to `end`, but at least one (spec §4.2), each a view of its row. The slice ends where
 * its bytes do, at the first gap (a delete that committed after the state was read).
 */
export function jsonMessages(rows: readonly { start: number; data: Uint8Array }[], start: number, end: number): { chunks: Uint8Array[]; end: number } {
  const chunks: Uint8Array[] = [];
  let pos = start;
  for (const { start: rowStart, data } of rows) {
    if (rowStart > pos) break;
    for (let at = pos - rowStart; at < data.length; ) {
      const stop = messageEnd(data, at);
      if (chunks.length > 0 && rowStart + stop > end) return { chunks, end: pos };
      chunks.push(at === 0 && stop === data.length ? data : data.subarray(at, stop));
      at = stop;
      pos = rowStart + stop;
    }
  }
  return { chunks, end: pos };
}
