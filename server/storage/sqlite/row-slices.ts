// A read's bytes cut out of the log rows that hold them (message-log.ts reads the rows): whole
// rows where the read covers them, views of the first and last otherwise.

import type { ReadSlice } from "../store";
import type { MessageRow } from "./log-reads";

/**
 * The bytes from `start` up to `end`; with `wholeMessages`, whole rows only (a byte stream's row
 * is one message), but at least one. The slice ends where its bytes do: rows can be missing only
 * when a delete has committed and the state read is the durable one before it, and claiming
 * bytes never sent would let the reader skip them.
 */
export function sliceRows(rows: readonly MessageRow[], start: number, end: number, wholeMessages: boolean): ReadSlice {
  const chunks: Uint8Array[] = [];
  let pos = start;
  for (const row of rows) {
    if (row.start > pos) break;
    if (wholeMessages) {
      if (chunks.length > 0 && row.start + row.data.length > end) break;
      chunks.push(row.data);
      pos = row.start + row.data.length;
      continue;
    }
    const from = pos - row.start;
    const to = Math.min(end, row.start + row.data.length) - row.start;
    chunks.push(from === 0 && to === row.data.length ? row.data : row.data.subarray(from, to));
    pos = row.start + to;
  }
  return { chunks, end: pos };
}
