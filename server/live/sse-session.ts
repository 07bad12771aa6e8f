// One SSE subscription (spec §4.4): catch up in data+control pairs, then wait at the tail and
// forward each commit. Ends after the closing control, on deletion (with an error event), at the
// configured lifetime, or at shutdown (with a final control the client can resume from).

import { streamCursor } from "../protocol/cursor";
import { formatOffset } from "../protocol/offsets";
import type { StreamState } from "../protocol/state";
import type { Store } from "../storage/store";
import type { LiveHub, Subscription } from "./hub";
import { controlEvent, dataEvent, errorEvent, HEARTBEAT, type Control } from "./sse-frames";
import { encodeSsePayload, type SsePayload, type SsePayloadMode } from "./sse-payload";

export interface SseSessionOptions {
  store: Store;
  hub: LiveHub;
  key: string;
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
 * A subscriber that stops reading must not make the server buffer without bound: past this many
 * unsent bytes the response ends, and the client resumes from its last control event's offset.
 */
export const SSE_MAX_QUEUED_BYTES = 8 * 1024 * 1024;

export function sseBody(o: SseSessionOptions): ReadableStream<Uint8Array> {
  const stop = new AbortController();
  o.signal.addEventListener("abort", () => stop.abort(), { once: true });
  return new ReadableStream<Uint8Array>(
    {
      async start(controller) {
        const send = (event: string | Uint8Array) => {
          controller.enqueue(typeof event === "string" ? encoder.encode(event) : event);
          if (controller.desiredSize! < -SSE_MAX_QUEUED_BYTES) stop.abort();
        };
        try {
          await run(o, send, stop.signal);
        } finally {
          try {
            controller.close();
          } catch {
            // The client cancelled the response already.
          }
        }
      },
      cancel() {
        stop.abort();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 }),
  );
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

async function run(o: SseSessionOptions, send: (event: string | Uint8Array) => void, signal: AbortSignal): Promise<void> {
  const subscription = o.hub.subscribe(o.state.id, signal, o.client);
  try {
    await follow(o, send, subscription, signal);
  } finally {
    subscription.close();
  }
}

async function follow(o: SseSessionOptions, send: (event: string | Uint8Array) => void, subscription: Subscription, signal: AbortSignal): Promise<void> {
  const id = o.state.id;
  const deadline = Date.now() + o.maxDurationMs;
  let offset = o.start;
  let lastControl = "";
  for (;;) {
    if (signal.aborted) return;
    const state = o.store.get(o.key);
    if (!state || state.id !== id || state.softDeleted) {
      send(errorEvent("stream was deleted"));
      return;
    }
    // Retention overtook this reader (spec §3.4): what it would read next is gone.
    if (offset < state.retained) {
      send(errorEvent(`offset ${formatOffset(offset)} is below the retained floor ${formatOffset(state.retained)}; bootstrap the stream to recover`));
      return;
    }
    if (offset < state.tail) {
      const payload = o.hub.payloadAt(id, offset, state.tail, o.limitBytes, o.mode) ?? encodeSsePayload(o.store, state, offset, o.limitBytes, o.mode);
      if (payload.end > offset) {
        const p = controlPoint(state, payload.end);
        send(dataAndControl(payload, p, o.cursor));
        lastControl = p.resting;
        offset = payload.end;
        if (p.closed) return;
        continue;
      }
      // Nothing readable below the tail: the stream's delete has committed and is being synced.
      // Waiting for it, rather than reading again at once, lets that sync's callback run.
    }
    const p = controlPoint(state, offset);
    if (p.resting !== lastControl) {
      send(controlText(p, o.cursor));
      lastControl = p.resting;
    }
    if (p.closed) return;
    const remaining = deadline - Date.now();
    if (remaining <= 0) return;
    const wake = await subscription.next(Math.min(o.heartbeatMs, remaining));
    if (wake === "aborted") return;
    if (wake === "shutdown" || (wake === "timeout" && Date.now() >= deadline)) {
      // A final control without streamClosed: the client resumes from it (spec §4.4 lifetime).
      const now = o.store.get(o.key);
      send(controlText(controlPoint(now && now.id === id ? now : state, offset), o.cursor));
      return;
    }
    if (wake === "timeout") send(HEARTBEAT);
  }
}
