// A stand-in for the checkpoint thread (storage/sqlite/checkpointer.ts) whose checkpoints take as long as
// the test says: `path` is a comma-separated list of milliseconds, one per checkpoint in order
// (0 once the list runs out). Each request is reported when it arrives, so a test sees which
// checkpoints were asked for and which of them held writes back.

import type { CheckpointDone, CheckpointerClose, CheckpointerClosed, CheckpointerMessage, CheckpointerStart, CheckpointRequest } from "../storage/sqlite/checkpointer";

declare const self: Worker;

let durations: number[] = [];

self.onmessage = (event: MessageEvent<CheckpointerStart | CheckpointRequest | CheckpointerClose>) => {
  const m = event.data;
  if ("path" in m) {
    durations = m.path.split(",").map(Number);
    return;
  }
  if ("close" in m) {
    self.postMessage({ closed: true } satisfies CheckpointerClosed);
    return;
  }
  self.postMessage({ level: "info", message: `asked ${m.checkpoint}` } satisfies CheckpointerMessage);
  setTimeout(() => self.postMessage({ done: m.checkpoint, leftBytes: 0 } satisfies CheckpointDone), durations.shift() ?? 0);
};
