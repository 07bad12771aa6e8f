// The turns of the event loop that large reads take (issue 21: no request stalls the others).
// A catch-up, JSON page or bootstrap is read in steps, each bounded by time (stepped-read.ts). Had
// each reader waited for its next step with its own setImmediate, every reader's step would run in
// the same pass of the loop, and a request arriving meanwhile would wait for all of them.
// Here the readers queue, and one step runs per pass, so requests that arrive between two steps
// are read after at most one step, whatever the number of readers; the readers' own throughput is
// the same, as the CPU is shared among them either way.
//
// The first turn asked for in a pass where none has run is granted at once, with no pass in
// between. Besides the pass it saves, this keeps a lone answer inside the request's own turn: Bun
// sends a large answer that completes after a later pass in many small sends, one per header part
// (oven-sh/bun PR 41341, open; docs/design/stepped-reads.md).

const waiting: (() => void)[] = [];
/**
 * free: the next asker runs at once. granted: one did in this pass, so the next waits for a
 * later one. pumping: waiters take a pass each.
 */
let turns: "free" | "granted" | "pumping" = "free";

function pump(): void {
  const next = waiting.shift()!;
  if (waiting.length > 0) setImmediate(pump);
  else turns = "free";
  next();
}

function startPump(): void {
  turns = "pumping";
  setImmediate(pump);
}

/** Resolves when this reader's next step may run: at once if no step has run in this pass, else a later pass, in order of asking. */
export function nextReadTurn(): Promise<void> {
  if (turns === "free") {
    turns = "granted";
    // Ended after this pass's I/O; a reader that queued meanwhile then runs a pass later still,
    // so the step granted here and the next have a poll for I/O between them.
    setImmediate(() => {
      if (waiting.length > 0) startPump();
      else turns = "free";
    });
    return Promise.resolve();
  }
  return new Promise((resolve) => waiting.push(resolve));
}
