// The turns of the event loop that large reads take (issue 21: no request stalls the others).
// A catch-up, JSON page or bootstrap of up to 8 MiB is read in steps of 512 KiB. Had each reader
// waited for its next step with its own setImmediate, every reader's step would run in the same
// pass of the loop, and a HEAD arriving meanwhile would wait for all of them: ten concurrent
// readers of 100-byte JSON messages held the loop for 200-800 ms at a time under the scale bench.
// Here the readers queue, and one step runs per pass, so requests that arrive between two steps
// are read after at most one step, whatever the number of readers; the readers' own throughput is
// the same, as the CPU is shared among them either way.

const waiting: (() => void)[] = [];
let pumping = false;

function pump(): void {
  const next = waiting.shift()!;
  if (waiting.length > 0) setImmediate(pump);
  else pumping = false;
  next();
}

/** Resolves when this reader's next step may run: at least one pass of the loop from now, in order of asking. */
export function nextReadTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!pumping) {
      pumping = true;
      setImmediate(pump);
    }
  });
}
