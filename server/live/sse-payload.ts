// What one SSE data event carries, by stream type (spec §4.4): a JSON array of whole messages,
// NDJSON text, UTF-8 text cut only at a code-point boundary, or base64 for everything else.

import type { StreamState } from "../protocol/state";
import type { ReadSlice } from "../storage/store";
import { jsonArrayText } from "./json-array";

/** How an SSE session reads (shared-reads.ts, one read for all the readers a wake finds at one place): the stream's state now, and an event's payload from an offset. */
export interface LiveReads {
  state(): Promise<StreamState | undefined>;
  payload(state: StreamState, start: number, limitBytes: number, mode: SsePayloadMode): Promise<SsePayload>;
}

/** Bytes of the stream from `start`, below `state`'s tail. */
export type ReadBytes = (state: StreamState, start: number, limitBytes: number, wholeMessages: boolean) => Promise<ReadSlice>;

export type SsePayloadMode = "json-array" | "ndjson" | "text" | "base64";

const text = new TextDecoder("utf-8");

export interface SsePayload {
  text: string;
  end: number;
  /** The payload framed as a data event with its control, kept for the next reader that sends the same pair. */
  framed?: { key: string; bytes: Uint8Array };
}

export async function encodeSsePayload(read: ReadBytes, state: StreamState, start: number, limitBytes: number, mode: SsePayloadMode): Promise<SsePayload> {
  const slice = await read(state, start, limitBytes, mode === "json-array");
  return encodeChunks(slice.chunks, start, slice.end, slice.end === state.tail, mode);
}

/** `chunks` are the bytes from `start` to `end`; `atTail` says nothing follows them yet. */
export function encodeChunks(chunks: Uint8Array[], start: number, end: number, atTail: boolean, mode: SsePayloadMode): SsePayload {
  if (mode === "json-array") return { text: jsonArrayText(chunks), end };
  const bytes = concat(chunks);
  if (mode === "base64") return { text: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("base64"), end };
  const cut = atTail ? bytes.length : utf8Boundary(bytes);
  // A read that would otherwise be cut to nothing sends the partial character rather than stall.
  const length = cut === 0 ? bytes.length : cut;
  return { text: text.decode(bytes.subarray(0, length)), end: start + length };
}

/** The longest prefix that does not end inside a UTF-8 sequence. */
export function utf8Boundary(bytes: Uint8Array): number {
  let i = bytes.length;
  let back = 0;
  while (i > 0 && back < 4 && (bytes[i - 1]! & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i === 0) return bytes.length;
  const lead = bytes[i - 1]!;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return back + 1 >= need ? bytes.length : i - 1;
}

export function concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  let size = 0;
  for (const c of chunks) size += c.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
