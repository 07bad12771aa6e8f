// A catch-up read of up to 8 MiB, taken from the store a step at a time with a turn of the event
// loop between steps, one step of all readers' per pass (read-turns.ts), so large reads never hold
// every other request back. The rows are read before the response starts, as one synchronous read
// would: the headers name where the bytes end, and a delete or retention that commits between
// steps only ends the slice early.
//
// Steps are bounded by time, not by bytes alone: the first is READ_STEP_BYTES, and each next one
// is what the last one's pace reads in STEP_BUDGET_MS, so fast reads (large messages) take fewer
// steps. MAX_STEP_BYTES caps a step because one sized by a warm pace can land on pages not yet
// mapped, which are much slower (docs/design/stepped-reads.md).

import type { StreamState } from "../protocol/state";
import { READ_STEP_BYTES, type ReadSlice, type Store } from "../storage/store";
import { nextReadTurn } from "./read-turns";

/** What one step may take, judged by the step before it. */
export const STEP_BUDGET_MS = 1;
/** The largest step: what a cold map reads within a few milliseconds. */
export const MAX_STEP_BYTES = 1024 * 1024;

/** The next step's size: what `bytes` read in `ms` says fits in STEP_BUDGET_MS, within [READ_STEP_BYTES, MAX_STEP_BYTES]. */
export function nextStepBytes(bytes: number, ms: number): number {
  const fits = (bytes * STEP_BUDGET_MS) / Math.max(ms, 0.001);
  return Math.floor(Math.max(READ_STEP_BYTES, Math.min(MAX_STEP_BYTES, fits)));
}

/** Whatever reads a stream's rows: the store, or a live reader's shared reads (live/shared-reads.ts). */
export type RangeReader = Pick<Store, "readRange">;

/** Milliseconds, for timing steps; tests pass a clock of their own so a step's pace does not depend on the machine's load. */
export type StepClock = () => number;

/**
 * Up to `limitBytes` from `start`, a step at a time. Once `signal` says the client has gone, no
 * further step is read: what was read is returned, to an answer nobody will get.
 */
export async function readInSteps(
  store: RangeReader,
  state: StreamState,
  start: number,
  limitBytes: number,
  wholeMessages: boolean,
  signal?: AbortSignal,
  clock: StepClock = () => performance.now(),
): Promise<ReadSlice> {
  let began = clock();
  const first = await store.readRange(state, start, Math.min(limitBytes, READ_STEP_BYTES), wholeMessages);
  let stepBytes = nextStepBytes(first.end - start, clock() - began);
  const limit = start + limitBytes;
  if (first.end >= Math.min(limit, state.tail) || first.end === start) return first;
  const chunks = first.chunks;
  let end = first.end;
  while (end < Math.min(limit, state.tail)) {
    await nextReadTurn();
    if (signal?.aborted) break;
    began = clock();
    const step = await store.readRange(state, end, Math.min(limit - end, stepBytes), wholeMessages);
    // In array mode a step holds at least one whole message (spec §4.2); past the first step, one
    // that does not fit in what is left of the limit belongs to the next response.
    if (step.end > limit || step.end === end) break;
    stepBytes = nextStepBytes(step.end - end, clock() - began);
    for (const chunk of step.chunks) chunks.push(chunk);
    end = step.end;
  }
  return { chunks, end };
}
