// Server-side message search for the console: substring (bytes, optionally ignoring ASCII case)
// and, on JSON streams, a field's value. A 100,000-message stream is more than a browser should
// download to search, so the server scans, but never more than SEARCH_BYTES per request (a
// catch-up's budget is of the same order): the answer says where it stopped and the console asks
// again from there. Reads go through the Store's own read path, so the newest messages (held in
// memory) are searched like the rest.

import type { SearchMatch, SearchPage } from "../introspection-api";
import type { StreamState } from "../protocol/state";
import { READ_STEP_BYTES, type Store } from "../storage/store";
import { nextReadTurn } from "./read-turns";
import { STEP_BUDGET_MS, type StepClock } from "./stepped-read";

export const SEARCH_BYTES = 4 * 1024 * 1024;
const PREVIEW_BYTES = 240;

export interface SearchQuery {
  from: number;
  /** Substring to find in one message's bytes (UTF-8); empty matches every message. */
  text: string;
  matchCase: boolean;
  /** JSON streams: a dotted path (`order.items.0.sku`) and the value it must hold; empty value: the field is present. */
  field: string;
  value: string;
  limit: number;
}

const utf8 = new TextEncoder();
const decoder = new TextDecoder();

/**
 * One page of a search. Like a catch-up it reads in steps with a read turn between them
 * (read-turns.ts), and it yields a turn again whenever matching has taken a step's budget
 * (STEP_BUDGET_MS), so a search of large, deeply nested JSON holds no other request back. It
 * stops, answering what it found so far, once `signal` says the client has gone.
 */
export async function searchMessages(store: Store, state: StreamState, json: boolean, q: SearchQuery, signal: AbortSignal, clock: StepClock = () => performance.now()): Promise<SearchPage> {
  const needle = q.matchCase ? utf8.encode(q.text) : lowerAscii(utf8.encode(q.text));
  const path = q.field === "" ? null : q.field.split(".");
  const wanted = parseValue(q.value);
  const matches: SearchMatch[] = [];
  const end = Math.min(q.from + SEARCH_BYTES, state.tail);
  let pos = q.from;
  scan: while (pos < end && matches.length < q.limit) {
    await nextReadTurn();
    if (signal.aborted) break;
    let began = clock();
    const slice = await store.readRange(state, pos, Math.min(end - pos, READ_STEP_BYTES), true);
    if (slice.end === pos) break;
    for (const chunk of slice.chunks) {
      if (matches.length >= q.limit) break scan;
      if (clock() - began > STEP_BUDGET_MS) {
        await nextReadTurn();
        if (signal.aborted) break scan;
        began = clock();
      }
      const start = pos;
      pos += chunk.length;
      // A JSON message is stored as its text and one LF (spec §1.6).
      const body = json ? chunk.subarray(0, chunk.length - 1) : chunk;
      if (needle.length > 0 && indexOf(q.matchCase ? body : lowerAscii(body), needle) < 0) continue;
      if (path !== null && !(json && fieldMatches(body, path, wanted, q.matchCase))) continue;
      matches.push({ offset: start, size: chunk.length, preview: preview(body, json || isText(state)) });
    }
  }
  return { matches, from: q.from, scanned_to: pos, tail_offset: state.tail, done: pos >= state.tail };
}

function indexOf(hay: Uint8Array, needle: Uint8Array): number {
  return Buffer.from(hay.buffer, hay.byteOffset, hay.length).indexOf(needle);
}

function lowerAscii(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    out[i] = b >= 0x41 && b <= 0x5a ? b + 0x20 : b;
  }
  return out;
}

type Wanted = { kind: "present" } | { kind: "text"; text: string; json: string | undefined };

function parseValue(value: string): Wanted {
  if (value === "") return { kind: "present" };
  let json: string | undefined;
  try {
    json = JSON.stringify(JSON.parse(value));
  } catch {
    json = undefined;
  }
  return { kind: "text", text: value, json };
}

function fieldMatches(body: Uint8Array, path: string[], wanted: Wanted, matchCase: boolean): boolean {
  let v: unknown;
  try {
    v = JSON.parse(decoder.decode(body));
  } catch {
    return false;
  }
  for (const key of path) {
    if (v === null || typeof v !== "object" || !Object.hasOwn(v, key)) return false;
    v = (v as Record<string, unknown>)[key];
  }
  if (wanted.kind === "present") return true;
  // A string field is compared with the text as typed; any other value with the text read as JSON.
  if (typeof v === "string") return matchCase ? v === wanted.text : foldAscii(v) === foldAscii(wanted.text);
  return wanted.json !== undefined && JSON.stringify(v) === wanted.json;
}

const foldAscii = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

function isText(state: StreamState): boolean {
  return state.contentType.toLowerCase().startsWith("text/");
}

function preview(body: Uint8Array, text: boolean): string {
  const head = body.subarray(0, PREVIEW_BYTES);
  if (text) return decoder.decode(head) + (body.length > PREVIEW_BYTES ? "…" : "");
  return Array.from(head.subarray(0, 32), (b) => b.toString(16).padStart(2, "0")).join(" ") + (body.length > 32 ? " …" : "");
}
