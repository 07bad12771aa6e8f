// Batched appends (spec §2.10): a body of length-framed payloads, each its own append (never
// merged into one message, not atomic across frames), decided one after another against the
// stream as the frames before it left it. The whole request is refused only for what concerns
// all of it: its syntax, its size, a missing stream, another incarnation.

import { applyAppend, decideAppend, type AppendDecision, type AppendEffect } from "./append";
import { isJsonType } from "./content-type";
import { fail, ok, type Parsed, type ProtocolError } from "./errors";
import { jsonMessages } from "./json-body";
import type { ProducerClock } from "./producer";
import type { StreamState } from "./state";

export const MAX_BATCH_FRAMES = 512;
export const MAX_BATCH_BYTES = 32 * 1024 * 1024;

/** Each frame: a u32 big-endian length, then that many bytes. Views into `body`, not copies. */
export function parseFrames(body: Uint8Array): Parsed<Uint8Array[]> {
  const frames: Uint8Array[] = [];
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  let at = 0;
  while (at < body.length) {
    if (body.length - at < 4) return fail("BAD_REQUEST", `the frame at byte ${at} is cut off inside its 4-byte length`);
    const length = view.getUint32(at);
    at += 4;
    if (length === 0) return fail("EMPTY_APPEND", `frame ${frames.length} is empty; every frame needs a payload`);
    if (body.length - at < length) return fail("BAD_REQUEST", `frame ${frames.length} says ${length} bytes, but only ${body.length - at} follow`);
    if (frames.length === MAX_BATCH_FRAMES) return fail("PAYLOAD_TOO_LARGE", `a batch holds at most ${MAX_BATCH_FRAMES} frames`);
    frames.push(body.subarray(at, at + length));
    at += length;
  }
  if (frames.length === 0) return fail("BAD_REQUEST", "the batch holds no frames");
  return ok(frames);
}

/**
 * The stored messages of each frame. On a JSON type each frame is one JSON text, flattened one
 * level on its own (spec §1.6); an invalid frame or `[]` refuses the whole batch before anything
 * is decided, as the same body would refuse a single append.
 */
export function frameMessages(frames: Uint8Array[], contentType: string): Parsed<Uint8Array[][]> {
  if (!isJsonType(contentType)) return ok(frames.map((f) => [f]));
  const out: Uint8Array[][] = [];
  for (let i = 0; i < frames.length; i++) {
    const parsed = jsonMessages(frames[i]!, false);
    if (!parsed.ok) return { ok: false, error: { ...parsed.error, message: `frame ${i}: ${parsed.error.message}` } };
    out.push(parsed.value);
  }
  return ok(out);
}

/** One frame's ack (spec §2.10): its new tail, or why it failed. */
export type FrameAck =
  | { ok: true; nextOffset: number }
  | { ok: false; error: ProtocolError; nextOffset: number; closed: boolean };

export function frameAck(decision: AppendDecision, tailAfter: number, closed: boolean): FrameAck {
  if (decision.kind === "accepted") return { ok: true, nextOffset: decision.effect.start + decision.effect.bytes };
  if (decision.kind === "error") return { ok: false, error: decision, nextOffset: decision.context.nextOffset ?? tailAfter, closed };
  // A frame carries no producer headers and no close, so neither a duplicate nor an idempotent
  // close can come of one.
  throw new Error(`a batch frame cannot be decided ${decision.kind}`);
}

/** What a batch does: an ack per frame, and the appends of the accepted frames, to apply in order. */
export interface BatchDecision {
  acks: FrameAck[];
  appends: AppendEffect[];
}

/**
 * Every frame decided in order (spec §2.10), each against the stream as the accepted frames
 * before it left it; the engine applies `appends` one after another from the same state, inside
 * the transaction that loaded it. The incarnation is checked once, for the whole batch, before.
 */
export function decideBatch(state: StreamState, contentType: string, frames: Uint8Array[][], clock: ProducerClock): BatchDecision {
  const acks: FrameAck[] = [];
  const appends: AppendEffect[] = [];
  let s = state;
  for (const messages of frames) {
    const decision = decideAppend(s, { contentType, messages, close: false, streamSeq: null, producer: null, incarnation: null }, clock);
    if (decision.kind === "accepted") {
      s = applyAppend(s, decision.effect, clock.nowMs);
      appends.push(decision.effect);
    }
    acks.push(frameAck(decision, s.tail, s.closed));
  }
  return { acks, appends };
}
