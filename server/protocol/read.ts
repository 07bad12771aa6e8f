// Read planning (spec §4.1, §4.3, §5.4): where a read starts, and which error wins, in the
// order 404, then 410/416, then 412.

import { protocolError, type ProtocolError } from "./errors";
import { incarnationMismatch } from "./incarnation";
import type { OffsetInput } from "./offsets";
import type { StreamState } from "./state";

/** The most one response carries; `max_bytes` is clamped to it (spec §8.1). */
export const READ_MAX_BYTES = 8 * 1024 * 1024;

export function planReadStart(state: StreamState | undefined, offset: OffsetInput, incarnation: string | null): ProtocolError | number {
  if (state === undefined) return protocolError("STREAM_NOT_FOUND", "stream not found");
  if (state.softDeleted) return protocolError("STREAM_SOFT_DELETED", "stream was deleted; its forks still hold its data", { onCreate: false });
  // -1 (and an absent offset) is byte 0, not "the earliest retained": once retention has moved,
  // it is gone like any other trimmed offset [CW] ("a read from offset=-1 answers 410").
  const start = offset.kind === "start" ? 0 : offset.kind === "now" ? state.tail : offset.position;
  const gone = belowFloor(state, start);
  if (gone) return gone;
  if (start > state.tail) {
    return protocolError("OFFSET_OUT_OF_RANGE", "offset is beyond the tail", { nextOffset: state.tail });
  }
  return incarnationMismatch(state, incarnation) ?? start;
}

/** 410 for a position retention has trimmed (spec §3.4): both headers name the floor. */
export function belowFloor(state: StreamState, position: number): ProtocolError | null {
  if (position >= state.retained) return null;
  return protocolError(
    "STREAM_GONE",
    `offset ${position} is below the retained floor ${state.retained}; bootstrap the stream (GET …/bootstrap) to recover from its snapshot`,
    { nextOffset: state.retained, earliestOffset: state.retained },
  );
}

/** Metadata requests (HEAD, DELETE, attributes, bootstrap) check existence, then the incarnation. */
export function checkAddressed(state: StreamState | undefined, incarnation: string | null): ProtocolError | StreamState {
  if (state === undefined) return protocolError("STREAM_NOT_FOUND", "stream not found");
  if (state.softDeleted) return protocolError("STREAM_SOFT_DELETED", "stream was deleted; its forks still hold its data", { onCreate: false });
  return incarnationMismatch(state, incarnation) ?? state;
}

export function readLimit(maxBytes: number | null): number {
  return maxBytes === null ? READ_MAX_BYTES : Math.min(maxBytes, READ_MAX_BYTES);
}
