// One SSE subscription (spec §4.4): catch up in data+control pairs, then wait at the tail and
// forward each commit. Ends after the closing control, on deletion (with an error event), at the
// configured lifetime, or at shutdown (with a final control the client can resume from).

import { streamCursor } from "../protocol/cursor";
import { formatOffset } from "../protocol/offsets";
import type { StreamState } from "../protocol/state";
import type { Store } from "../storage/store";
import type { LiveHub } from "./hub";
import { controlEvent, dataEvent, errorEvent, HEARTBEAT, type Control } from "./sse-frames";
import { encodeSsePayload, type SsePayloadMode } from "./sse-payload";

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
        const send = (text: string) => {
          controller.enqueue(encoder.encode(text));
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

function control(state: StreamState, end: number, cursor: string | null): Control {
  const atTail = end === state.tail;
  const closed = state.closed && atTail;
  const c: Control = { streamNextOffset: formatOffset(end) };
  if (!closed) c.streamCursor = streamCursor(Date.now(), cursor);
  if (atTail) c.upToDate = true;
  if (closed) c.streamClosed = true;
  return c;
}

async function run(o: SseSessionOptions, send: (text: string) => void, signal: AbortSignal): Promise<void> {
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
    if (offset < state.tail) {
      const payload = o.hub.payloadAt(id, offset, state.tail, o.limitBytes, o.mode) ?? encodeSsePayload(o.store, state, offset, o.limitBytes, o.mode);
      if (payload.end > offset) {
        const c = control(state, payload.end, o.cursor);
        // A data event and its control go out in one write, so no reader sees one without the other.
        send(dataEvent(payload.text, c.streamNextOffset) + controlEvent(c));
        lastControl = JSON.stringify({ ...c, streamCursor: undefined });
        offset = payload.end;
        if (c.streamClosed) return;
        continue;
      }
      // Nothing readable below the tail: the stream's delete has committed and is being synced.
      // Waiting for it, rather than reading again at once, lets that sync's callback run.
    }
    const c = control(state, offset, o.cursor);
    const fingerprint = JSON.stringify({ ...c, streamCursor: undefined });
    if (fingerprint !== lastControl) {
      send(controlEvent(c));
      lastControl = fingerprint;
    }
    if (c.streamClosed) return;
    const remaining = deadline - Date.now();
    if (remaining <= 0) return;
    const wake = await o.hub.wait(id, Math.min(o.heartbeatMs, remaining), signal);
    if (wake === "aborted") return;
    if (wake === "shutdown" || (wake === "timeout" && Date.now() >= deadline)) {
      // A final control without streamClosed: the client resumes from it (spec §4.4 lifetime).
      const now = o.store.get(o.key);
      send(controlEvent(control(now && now.id === id ? now : state, offset, o.cursor)));
      return;
    }
    if (wake === "timeout") send(HEARTBEAT);
  }
}
