// The one way a stream read runs, for catch-up, long-poll, SSE, HEAD and bootstrap: load what the
// read decision (protocol/read.ts, protocol/bootstrap.ts) needs, ask it, apply what it decides
// (the TTL renewal), and take the bytes, from a segment file when one holds them, else from the
// store in steps (stepped-read.ts). HTTP parses the request and renders what this returns; the
// live layer fans wakes out, asking decideWake at each.

import { bootstrapStart, BOOTSTRAP_MAX_BYTES } from "../protocol/bootstrap";
import { isProtocolError, type ProtocolError } from "../protocol/errors";
import { checkAddressed, decideBoundary, decideRead, decideWake, type ReadPlan, type ReadRequest, type ServePlan } from "../protocol/read";
import type { StreamState } from "../protocol/state";
import type { LiveHub } from "../live/hub";
import type { SharedReader } from "../live/shared-reads";
import type { FileSpan, ReadSlice, SnapshotReader, Store } from "../storage/store";
import { readInSteps, type RangeReader } from "./stepped-read";

/** A GET's plan: 404, 410, 416 and 412 from the state, then an offset inside a JSON message; a served read renews the TTL (spec §7.1). */
export async function planRead(store: Store, key: string, req: ReadRequest, incarnation: string | null): Promise<ReadPlan> {
  const state = await store.get(key);
  let plan = decideRead(state, req, incarnation);
  if (plan.kind === "error") return plan;
  if (plan.arrayMode) plan = decideBoundary(plan, await store.isMessageStart(plan.state, plan.start));
  if (plan.kind === "serve") await store.renewTtl(key);
  return plan;
}

/**
 * A catch-up's bytes: a segment file's span (sent by sendfile, no copy) when one holds them and
 * the read is not an array, else whole messages or pieces read in steps, through `rows` (a woken
 * long-poll's shared reads, or the store). A span is returned as it is, without a promise, so a
 * file read costs no await.
 */
export function catchUpBytes(store: Store, state: StreamState, start: number, plan: ServePlan, signal: AbortSignal, rows: RangeReader = store): FileSpan | Promise<ReadSlice> {
  const file = plan.arrayMode ? null : (store.fileSpan?.(state, start, plan.limit) ?? null);
  return file ?? readInSteps(rows, state, start, plan.limit, plan.arrayMode, signal);
}

export interface LongPollWait {
  hub: LiveHub;
  /** The reader's shared reads (hub.reads), made after the read was planned. */
  reads: SharedReader;
  /** The state the read was planned on, whose tail the reader waits past. */
  state: StreamState;
  /** The hub's mark (hub.mark), taken before that state was read. */
  since: number;
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
  const subscription = w.hub.poll(w.state.id, w.since, w.signal, w.client, place);
  try {
    for (;;) {
      const remaining = w.deadline - Date.now();
      const wake = remaining > 0 ? await subscription.next(remaining) : "timeout";
      const now = await w.reads.state();
      const plan = decideWake(w.state.id, now, w.start, w.incarnation);
      if (typeof plan !== "string") return plan;
      if (plan === "serve" || now!.closed || wake !== "changed") return now!;
    }
  } finally {
    subscription.close();
  }
}

/** HEAD's plan: existence, then the incarnation; it reads no bytes and renews nothing (spec §2.8, §7.1). */
export async function planHead(store: Store, key: string, incarnation: string | null): Promise<ProtocolError | StreamState> {
  return checkAddressed(await store.get(key), incarnation);
}

/** What a bootstrap serves: the state, its snapshot pinned (null without one, or for a HEAD), and the messages after it. */
export interface BootstrapRead {
  state: StreamState;
  snapshot: SnapshotReader | null;
  messages: ReadSlice;
}

/**
 * A bootstrap (spec §2.18): the snapshot is pinned in the same turn as the state is read, so a
 * newer publish or retention changes nothing of it; the messages from its offset are then read
 * in steps, as a catch-up's are. A GET renews the TTL; a HEAD does not (spec §7.1).
 */
export async function runBootstrap(store: Store, key: string, incarnation: string | null, head: boolean): Promise<ProtocolError | BootstrapRead> {
  const state = checkAddressed(await store.get(key), incarnation);
  if (isProtocolError(state)) return state;
  const snapshot = state.snapshot && !head ? await store.openSnapshot(state.snapshot) : null;
  try {
    const messages = await readInSteps(store, state, bootstrapStart(state), BOOTSTRAP_MAX_BYTES, true);
    if (!head) await store.renewTtl(key);
    return { state, snapshot, messages };
  } catch (error) {
    snapshot?.release();
    throw error;
  }
}
