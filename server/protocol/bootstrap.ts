// Bootstrap (spec §2.18): the visible snapshot, then the retained messages from its offset (from
// the floor when there is none), up to 8 MiB of them; the client reads on from Stream-Next-Offset.
// The floor never passes the snapshot (§7.2), so this works once a stream answers 410.

import type { StreamState } from "./state";

/** Updates past this end the answer at a message boundary, without Stream-Up-To-Date. */
export const BOOTSTRAP_MAX_BYTES = 8 * 1024 * 1024;

export function bootstrapStart(state: StreamState): number {
  return state.snapshot?.offset ?? state.retained;
}

/** What the answer says about the parts it holds, which end at `end`. */
export function bootstrapEnd(state: StreamState, end: number): { upToDate: boolean; closed: boolean } {
  const upToDate = end === state.tail;
  return { upToDate, closed: upToDate && state.closed };
}
