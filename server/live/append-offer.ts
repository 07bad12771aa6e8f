// An append as the hub offers it to the live readers waiting where it starts, with its SSE
// payloads encoded once per form for all of them. It is either a commit of this instance, told
// with its bytes, or what one read found after another instance's notification (hub.ts): bytes
// at an offset of one incarnation never change, so either serves a reader exactly at `start`.

import type { StreamChange } from "../storage/store";
import { encodeChunks, type SsePayload, type SsePayloadMode } from "./sse-payload";

export type Appended = Extract<StreamChange, { kind: "appended" }>;

export class AppendOffer {
  private readonly frames = new Map<SsePayloadMode, SsePayload>();

  constructor(readonly change: Appended) {}

  /** The payload for a reader at `offset` whose stream's tail is `tail`: null unless the append runs from there to that tail within `limitBytes`. */
  payloadAt(offset: number, tail: number, limitBytes: number, mode: SsePayloadMode): SsePayload | null {
    const { start, state, messages } = this.change;
    if (start !== offset || state.tail !== tail || tail - offset > limitBytes) return null;
    let frame = this.frames.get(mode);
    if (!frame) this.frames.set(mode, (frame = encodeChunks(messages, offset, tail, true, mode)));
    return frame;
  }
}
