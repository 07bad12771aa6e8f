// Live readers for fan-out tests on any engine: SSE sessions and long-polls parked on one stream,
// driven as the read routes drive them (http/reads.ts), and a count of the reads the store serves.

import { catchUpBytes, waitPastTail } from "../http/read-executor";
import type { LiveHub } from "../live/hub";
import { sseBody } from "../live/sse-session";
import { isProtocolError } from "../protocol/errors";
import type { StreamState } from "../protocol/state";
import type { Store } from "../storage/store";

/** Counts the state and byte reads `store` serves from now on, through every caller (the store's own included). */
export function countReads(store: Store): { states: number; ranges: number } {
  const counts = { states: 0, ranges: 0 };
  const get = store.get.bind(store);
  const readRange = store.readRange.bind(store);
  store.get = (key) => {
    counts.states++;
    return get(key);
  };
  store.readRange = (state, start, limit, whole) => {
    counts.ranges++;
    return readRange(state, start, limit, whole);
  };
  return counts;
}

export interface SseReader {
  /** Everything received so far. */
  text(): string;
  /** Resolves once what was received satisfies `done`. */
  until(done: (text: string) => boolean): Promise<void>;
  stop(): void;
}

/** An SSE session on `state`'s stream from `start`, as GET ?live=sse opens one (text mode). */
export function sseReader(hub: LiveHub, key: string, state: StreamState, start: number, client: string): SseReader {
  const abort = new AbortController();
  const body = sseBody({
    reads: hub.reads(key, state.id),
    hub,
    state,
    start,
    limitBytes: 1 << 20,
    mode: "text",
    cursor: null,
    heartbeatMs: 60_000,
    maxDurationMs: 60_000,
    signal: abort.signal,
    client,
  });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const waiting = new Set<() => void>();
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      text += decoder.decode(value);
      for (const check of waiting) check();
    }
  })();
  return {
    text: () => text,
    until: (done) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!done(text)) return;
          waiting.delete(check);
          resolve();
        };
        waiting.add(check);
        check();
      }),
    stop: () => abort.abort(),
  };
}

/** A long-poll at `state`'s tail, as GET ?live=long-poll runs one: the bytes it is answered with. */
export async function longPoll(hub: LiveHub, store: Store, key: string, state: StreamState, client: string): Promise<string> {
  const reads = hub.reads(key, state.id);
  const signal = new AbortController().signal;
  const start = state.tail;
  // Callers park their readers on a state read before they append: a mark taken now misses nothing.
  const woke = await waitPastTail({ hub, reads, state, since: hub.mark(), start, incarnation: null, deadline: Date.now() + 30_000, signal, client });
  if (isProtocolError(woke)) throw new Error(woke.message);
  const bytes = catchUpBytes(store, woke, start, { kind: "serve", state, start, limit: 1 << 20, arrayMode: false }, signal, reads);
  const slice = bytes instanceof Promise ? await bytes : bytes;
  if (!("chunks" in slice)) throw new Error("a segment file answered a fresh append");
  return Buffer.concat(slice.chunks).toString();
}

/** The data events' payloads in `text`, in order. */
export function dataEvents(text: string): string[] {
  return [...text.matchAll(/event: data\n((?:data:.*\n)+)/g)].map((m) => m[1]!.split("\n").filter(Boolean).map((l) => l.slice(5).replace(/^ /, "")).join("\n"));
}

/** `sse` SSE sessions and `polls` long-polls at the tail of `state`'s stream, each from its own client address, once all are parked. */
export async function parkReaders(hub: LiveHub, store: Store, key: string, state: StreamState, sse: number, polls: number): Promise<{ sse: SseReader[]; polls: Promise<string>[] }> {
  const sessions = Array.from({ length: sse }, (_, i) => sseReader(hub, key, state, state.tail, `sse-${i}`));
  await Promise.all(sessions.map((r) => r.until((text) => text.includes('"upToDate":true'))));
  const waits = Array.from({ length: polls }, (_, i) => longPoll(hub, store, key, state, `poll-${i}`));
  while (hub.readersOf(state.id) < sse + polls) await Bun.sleep(5);
  // Every session's first read has settled, and no reader is between wakes.
  await Bun.sleep(20);
  return { sse: sessions, polls: waits };
}
