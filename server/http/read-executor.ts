// The one way a stream read runs, for catch-up, long-poll and SSE: load what the read decision
// (protocol/read.ts) needs, ask it, apply what it decides (the TTL renewal), and take the bytes, from
// a segment file when one holds them, else from the store in steps (stepped-read.ts). HTTP parses
// the request and renders what this returns; the live layer fans wakes out.

import type { ProtocolError } from "../protocol/errors";
import { decideBoundary, decideRead, decideWake, type ReadPlan, type ReadRequest, type ServePlan } from "../protocol/read";
import type { StreamState } from "../protocol/state";
import type { LiveHub } from "../live/hub";
import type { FileSpan, ReadSlice, Store } from "../storage/store";
import { readInSteps } from "./stepped-read";

/** A GET's plan: 404, 410, 416 and 412 from the state, then an offset inside a JSON message; a served read renews the TTL (spec §7.1). */
export async function planRead(store: Store, key: string, req: ReadRequest): Promise<ReadPlan> {
  const state = await store.get(key);
  let plan = decideRead(state, req);
  if (plan.kind === "error") return plan;
  if (plan.arrayMode) plan = decideBoundary(plan, await store.isMessageStart(plan.state, plan.start));
  if (plan.kind === "serve") await store.renewTtl(key);
  return plan;
}

/**
 * A catch-up's bytes: a segment file's span (sent by sendfile, no copy) when one holds them and
 * the read is not an array, else whole messages or pieces read in steps. A span is returned as it
 * is, without a promise, so a file read costs no await.
 */
export function catchUpBytes(store: Store, state: StreamState, start: number, plan: ServePlan): FileSpan | Promise<ReadSlice> {
  const file = plan.arrayMode ? null : (store.fileSpan?.(state, start, plan.limit) ?? null);
  return file ?? readInSteps(store, state, start, plan.limit, plan.arrayMode);
}

export interface LongPollWait {
  hub: LiveHub;
  store: Store;
  key: string;
  /** The state the read was planned on, whose tail the reader waits past. */
  state: StreamState;
  start: number;
  incarnation: string | null;
  deadline: number;
  signal: AbortSignal;
  client: string;
}

/** Where a long-poll ends: refused, or the stream's state to answer from (past the tail, or up to date). */
export type LongPollEnd = ProtocolError | StreamState;

/**
 * A long-poll at the tail: waits for a commit, then asks decideWake what the reader gets. Ends at
 * the first wake that has something to send or a refusal, at the deadline, or when a wake was not
 * a change (abort, shutdown): then the reader is up to date.
 */
export async function waitPastTail(w: LongPollWait): Promise<LongPollEnd> {
  const place = { bucket: w.state.bucket, offset: w.start, startedAtMs: Date.now() };
  for (;;) {
    const remaining = w.deadline - Date.now();
    const wake = remaining > 0 ? await w.hub.wait(w.state.id, remaining, w.signal, w.client, place) : "timeout";
    const now = await w.store.get(w.key);
    const plan = decideWake(w.state.id, now, w.start, w.incarnation);
    if (typeof plan !== "string") return plan;
    if (plan === "serve" || now!.closed || wake !== "changed") return now!;
  }
}
