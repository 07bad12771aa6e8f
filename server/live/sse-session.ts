// One SSE subscription (spec §4.4): catch up in data+control pairs, then wait at the tail and
// forward each commit. Ends after the closing control, on deletion (with an error event), at the
// configured lifetime, or at shutdown (with a final control the client can resume from).

import { streamCursor } from "../protocol/cursor";
import { formatOffset } from "../protocol/offsets";
import { decideWake } from "../protocol/read";
import type { StreamState } from "../protocol/state";
import { READ_STEP_BYTES } from "../storage/store";
import type { LiveHub, Subscription } from "./hub";
import { controlEvent, dataEvent, errorEvent, HEARTBEAT, type Control } from "./sse-frames";
import { SseOut, type DirectSink } from "./sse-out";
import type { LiveReads, SsePayload, SsePayloadMode } from "./sse-payload";

export interface SseSessionOptions {
  reads: LiveReads;
  hub: LiveHub;
  state: StreamState;
  start: number;
  limitBytes: number;
  mode: SsePayloadMode;
  cursor: string | null;
  heartbeatMs: number;
  maxDurationMs: number;
  signal: AbortSignal;
  /** The reader's address, counted against its per-client cap while the session lasts. */
  client: string;
}

const encoder = new TextEncoder();

/**
 * The session writes to the socket directly (sse-out.ts), and an event only once the client has
 * taken the ones before it, so a catch-up of any length runs on one connection, one bounded read
 * (READ_STEP_BYTES) per turn of the event loop. A client that stops reading holds its connection,
 * and one event, until the session's lifetime ends.
 */
export function sseBody(o: SseSessionOptions): ReadableStream<Uint8Array> {
  const stop = new AbortController();
  o.signal.addEventListener("abort", () => stop.abort(), { once: true });
  // Taken now, not when the body is first pulled, so the reader counts against the caps (and
  // hears every change) from the moment its response exists.
  const subscription = o.hub.subscribe(o.state.id, stop.signal, o.client, { bucket: o.state.bucket, offset: o.start, startedAtMs: Date.now() });
  let pulled = false;
  stop.signal.addEventListener("abort", () => {
    if (!pulled) subscription.close();
  }, { once: true });
  return new ReadableStream({
    type: "direct",
    async pull(sink: DirectSink) {
      pulled = true;
      try {
        await follow(o, new SseOut(sink, () => stop.abort()), subscription, stop.signal);
      } finally {
        subscription.close();
      }
      // A client that has gone cannot be told the end.
      if (!stop.signal.aborted) sink.close();
    },
    cancel() {
      stop.abort();
    },
  } as object) as unknown as ReadableStream<Uint8Array>;
}

/** What a control event at `end` says, before it is formatted and given a cursor. */
interface ControlPoint {
  end: number;
  atTail: boolean;
  closed: boolean;
  /** Equal for control events that say the same, whatever their cursor (which moves with the clock). */
  resting: string;
}

function controlPoint(state: StreamState, end: number): ControlPoint {
  const atTail = end === state.tail;
  const closed = state.closed && atTail;
  return { end, atTail, closed, resting: `${end}:${atTail ? 1 : 0}:${closed ? 1 : 0}` };
}

/** The cursor a control event carries, computed only for one that is sent. */
function cursorFor(p: ControlPoint, clientCursor: string | null): string | null {
  return p.closed ? null : streamCursor(Date.now(), clientCursor);
}

/** A control event on its own, with the cursor the client's request calls for. */
function controlText(p: ControlPoint, clientCursor: string | null): string {
  return controlEvent(control(p, cursorFor(p, clientCursor)));
}

function control(p: ControlPoint, cursor: string | null): Control {
  const c: Control = { streamNextOffset: formatOffset(p.end) };
  if (cursor !== null) c.streamCursor = cursor;
  if (p.atTail) c.upToDate = true;
  if (p.closed) c.streamClosed = true;
  return c;
}

/**
 * A data event and its control in one chunk, so no reader sees one without the other. Readers
 * woken by the same commit share the payload (hub.payloadAt), and nearly always the control too:
 * the pair is encoded once for all of them.
 */
function dataAndControl(payload: SsePayload, p: ControlPoint, clientCursor: string | null): Uint8Array {
  const cursor = cursorFor(p, clientCursor);
  const key = `${p.resting}:${cursor}`;
  if (payload.framed?.key === key) return payload.framed.bytes;
  const c = control(p, cursor);
  const bytes = encoder.encode(dataEvent(payload.text, c.streamNextOffset) + controlEvent(c));
  payload.framed = { key, bytes };
  return bytes;
}

async function follow(o: SseSessionOptions, out: SseOut, subscription: Subscription, signal: AbortSignal): Promise<void> {
  const id = o.state.id;
  const deadline = Date.now() + o.maxDurationMs;
  const step = Math.min(o.limitBytes, READ_STEP_BYTES);
  let offset = o.start;
  let lastControl = "";
  const sendData = (payload: SsePayload, p: ControlPoint) => {
    out.send(dataAndControl(payload, p, o.cursor));
    lastControl = p.resting;
    offset = payload.end;
    subscription.sentTo(offset);
  };
  // While the reader waits at the tail, an append that starts there is sent as the commit tells
  // it, with no wake, read or turn of the loop per reader: what 1,000 subscribers cost per event
  // is then mostly the 1,000 writes. Anything else wakes the reader, which reads and decides.
  subscription.pushWith((offer) => {
    const { state } = offer.change;
    if (out.busy || decideWake(id, state, offset, null) !== "serve") return false;
    // An offer's payload runs to its state's tail, so the reader is at the tail once it is sent.
    const payload = offer.payloadAt(offset, state.tail, step, o.mode);
    if (payload === null) return false;
    const p = controlPoint(state, payload.end);
    if (p.closed) return false;
    sendData(payload, p);
    return true;
  });
  for (;;) {
    if (signal.aborted) return;
    // Deleted, or overtaken by retention (spec §3.4): the session ends with the refusal's reason.
    const now = await o.reads.state();
    const woke = decideWake(id, now, offset, null);
    if (typeof woke !== "string") {
      out.send(errorEvent(woke.message));
      return;
    }
    const state = now!;
    if (woke === "serve") {
      const payload = o.hub.payloadAt(id, offset, state.tail, step, o.mode) ?? (await o.reads.payload(state, offset, step, o.mode));
      if (payload.end > offset) {
        // The last event pushed may not have been taken yet.
        if (out.busy) await out.room();
        const p = controlPoint(state, payload.end);
        sendData(payload, p);
        if (p.closed) return;
        if (!p.atTail) {
          await out.room();
          continue;
        }
        // Sent up to the tail just read: a change since then is a wake the subscription holds,
        // so the reader waits for it without reading the state again.
      }
      // Else nothing readable below the tail: the stream's delete has committed and is being
      // synced. Waiting for it, rather than reading again at once, lets that sync's callback run.
    }
    const p = controlPoint(state, offset);
    if (p.resting !== lastControl) {
      out.send(controlText(p, o.cursor));
      lastControl = p.resting;
    }
    if (p.closed) return;
    const remaining = deadline - Date.now();
    if (remaining <= 0) return;
    const wake = await subscription.next(Math.min(o.heartbeatMs, remaining));
    if (wake === "aborted") return;
    if (wake === "shutdown" || (wake === "timeout" && Date.now() >= deadline)) {
      // A final control without streamClosed: the client resumes from it (spec §4.4 lifetime).
      const last = await o.reads.state();
      out.send(controlText(controlPoint(last && last.id === id ? last : state, offset), o.cursor));
      return;
    }
    if (wake === "timeout") out.send(HEARTBEAT);
  }
}
