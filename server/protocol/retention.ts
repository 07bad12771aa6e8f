// Advancing the retained floor (spec §2.17, §7.2), in the order Ursula checks it. The floor only
// rises, lands on a committed message boundary, and never passes the visible snapshot, so a
// stream that answers 410 can always be bootstrapped from a snapshot that covers the floor.

import { protocolError, type ProtocolError } from "./errors";
import { incarnationMismatch } from "./incarnation";
import type { StreamState } from "./state";

/** Where a snapshot or the floor goes: an offset, or a JSON record ordinal (`?record=N`). */
export type ResourceTarget = { kind: "offset"; offset: number } | { kind: "record"; record: number };

/**
 * The offset whose boundary a publish or retention decision asks about: the engine loads, inside
 * its transaction, whether a committed message of the stream starts there (or it is the tail),
 * and passes that as `atBoundary`. Null for a record target, which needs nothing loaded.
 */
export function targetOffset(target: ResourceTarget): number | null {
  return target.kind === "offset" ? target.offset : null;
}

export type RetentionDecision = ProtocolError | { kind: "unchanged"; state: StreamState } | { kind: "advance"; state: StreamState; floor: number };

/**
 * `atBoundary` says whether targetOffset(target) is where a committed message starts (or the
 * tail). Record coordinates (json-record-coordinates-v1) are not enabled on any ursa stream, so a
 * record target is the spec's "record parameters on a stream without them".
 */
export function decideRetention(state: StreamState | undefined, target: ResourceTarget, incarnation: string | null, atBoundary: boolean): RetentionDecision {
  if (state === undefined) return protocolError("STREAM_NOT_FOUND", "stream not found");
  if (state.softDeleted) return protocolError("STREAM_SOFT_DELETED", "stream was deleted; its forks still hold its data", { onCreate: false });
  const mismatch = incarnationMismatch(state, incarnation);
  if (mismatch) return mismatch;
  if (target.kind === "record") return noRecordCoordinates();
  const offset = target.offset;
  const conflict = (message: string) => protocolError("SNAPSHOT_CONFLICT", message, { nextOffset: state.tail, incarnation: state.incarnation });
  if (offset < state.retained) return conflict(`the retained floor is already ${state.retained}; it never moves back`);
  if (state.snapshot === null) return conflict("publish a snapshot first: retention may not pass the visible snapshot, and there is none");
  if (offset > state.snapshot.offset) return conflict(`retention may not pass the visible snapshot at ${state.snapshot.offset}`);
  if (offset === state.retained) return { kind: "unchanged", state };
  if (!atBoundary) return protocolError("INVALID_SNAPSHOT", `offset ${offset} is not where a committed message starts`);
  return { kind: "advance", state, floor: offset };
}

export function noRecordCoordinates(): ProtocolError {
  return protocolError(
    "INVALID_RECORD_BOUNDARIES",
    "record coordinates (json-record-coordinates-v1) are not enabled on this stream; address it by offset",
  );
}
