// Every read as a plan (spec §4.1, §4.3, §4.6, §5.4): where it starts, which refusal wins (404,
// then 410/416, then 412, then an offset inside a JSON message), the ETag and its 304, and what a
// live reader does when it wakes. Pure: the read executor (http/read-executor.ts) loads what these
// decisions need, asks them, and serves what they decide.

import { isJsonType } from "./content-type";
import { protocolError, type ProtocolError } from "./errors";
import { incarnationMismatch } from "./incarnation";
import { formatOffset, type OffsetInput } from "./offsets";
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
    `offset ${formatOffset(position)} is below the retained floor ${formatOffset(state.retained)}; bootstrap the stream (GET …/bootstrap) to recover from its snapshot`,
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

/** A read as the client asked for it, once parsed (http/read-query.ts's ReadQuery is one). */
export interface ReadRequest {
  offset: OffsetInput;
  /** `format=ndjson` (or its Accept): a JSON stream's messages as lines, not an array. */
  ndjson: boolean;
  maxBytes: number | null;
}

/**
 * What a read does: refused (a ProtocolError, as a write decision's refusal is), or served from `start`, at most `limit` bytes. `arrayMode`: a JSON
 * stream read as an array, which starts and ends on whole messages (spec §4.2); such a read still
 * asks where a message starts (`decideBoundary`) before it is served.
 */
export type ReadPlan = ProtocolError | ServePlan;

export interface ServePlan {
  kind: "serve";
  /** The state the read was decided on; its bytes are read as of it. */
  state: StreamState;
  start: number;
  limit: number;
  arrayMode: boolean;
}

/** The first decision of a GET: existence, then where it starts, then the incarnation (planReadStart). */
export function decideRead(state: StreamState | undefined, req: ReadRequest, incarnation: string | null): ReadPlan {
  const start = planReadStart(state, req.offset, incarnation);
  if (typeof start !== "number") return start;
  return { kind: "serve", state: state!, start, limit: readLimit(req.maxBytes), arrayMode: isJsonType(state!.contentType) && !req.ndjson };
}

/** The last refusal of an array-mode read, once the store has said whether its start is where a message starts. */
export function decideBoundary(plan: ReadPlan, atMessageStart: boolean): ReadPlan {
  if (plan.kind === "error" || atMessageStart) return plan;
  return protocolError("INVALID_OFFSET", "offset falls inside a JSON message");
}

/**
 * What a live reader at `offset` does once it wakes (long-poll or SSE), given the stream's state
 * now: refused when the stream it waited on is gone (404; 412 when the client names an
 * incarnation and the stream was recreated) or retention overtook it (410); "serve" when there is
 * something past its offset; "up-to-date" when there is not (then it ends if the stream is closed,
 * or waits again). No object for the two answers a wake nearly always gets: every live reader asks
 * on every commit.
 */
export type WakePlan = ProtocolError | "serve" | "up-to-date";

export function decideWake(waitedOn: number, now: StreamState | undefined, offset: number, incarnation: string | null): WakePlan {
  if (!now || now.id !== waitedOn || now.softDeleted) {
    // A recreated stream is not a continuation of the one the reader waited on.
    if (now && !now.softDeleted && incarnation !== null) {
      return protocolError("STREAM_INCARNATION_MISMATCH", "the stream was deleted and recreated while you waited", { incarnation: now.incarnation, nextOffset: now.tail });
    }
    return protocolError("STREAM_NOT_FOUND", "the stream was deleted while you waited");
  }
  return belowFloor(now, offset) ?? (offset < now.tail ? "serve" : "up-to-date");
}

/**
 * A catch-up's validator (spec §4.6): the incarnation, the range, array or bytes, and whether it
 * ends the stream, so the same request at the same state gets the same tag.
 */
export function catchUpEtag(state: StreamState, start: number, end: number, arrayMode: boolean, closed: boolean): string {
  return `"${state.incarnation}:${start}:${end}:${arrayMode ? "a" : "b"}${closed ? ":c" : ""}"`;
}

/** HEAD's validator: everything HEAD reports but the attributes, which move no ETag (spec §2.12). */
export function headEtag(s: StreamState): string {
  const snapshot = s.snapshot ? `:s${s.snapshot.offset}.${s.snapshot.digest.slice(0, 16)}` : "";
  return `"${s.incarnation}:${s.tail}:h${s.retained > 0 ? `:r${s.retained}` : ""}${snapshot}${s.closed ? ":c" : ""}"`;
}

/** Whether If-None-Match names this tag, weakly or with `*`: the answer is then 304. */
export function notModified(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false;
  return ifNoneMatch.split(",").some((t) => {
    const v = t.trim();
    return v === "*" || v === etag || v === `W/${etag}`;
  });
}
