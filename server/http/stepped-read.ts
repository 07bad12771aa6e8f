// A catch-up read of up to 8 MiB, taken from the store a step at a time with a turn of the event
// loop between steps, so one large read never holds every other request back (a HEAD behind a
// single 8 MiB read of 100-byte JSON messages waited for its ~80,000 rows). The rows are read
// before the response starts, as one synchronous read would: the headers name where the bytes
// end, and a delete or retention that commits between steps only ends the slice early.

import type { StreamState } from "../protocol/state";
import { READ_STEP_BYTES, type ReadSlice, type Store } from "../storage/store";

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function readInSteps(store: Store, state: StreamState, start: number, limitBytes: number, wholeMessages: boolean): Promise<ReadSlice> {
  const first = await store.readRange(state, start, Math.min(limitBytes, READ_STEP_BYTES), wholeMessages);
  const limit = start + limitBytes;
  if (first.end >= Math.min(limit, state.tail) || first.end === start) return first;
  const chunks = first.chunks;
  let end = first.end;
  while (end < Math.min(limit, state.tail)) {
    await nextTurn();
    const step = await store.readRange(state, end, Math.min(limit - end, READ_STEP_BYTES), wholeMessages);
    // In array mode a step holds at least one whole message (spec §4.2); past the first step, one
    // that does not fit in what is left of the limit belongs to the next response.
    if (step.end > limit || step.end === end) break;
    for (const chunk of step.chunks) chunks.push(chunk);
    end = step.end;
  }
  return { chunks, end };
}
