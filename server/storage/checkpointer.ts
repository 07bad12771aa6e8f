// The checkpoint thread. Copying WAL frames into the database file (and syncing it) is slow and
// would otherwise run inside some COMMIT on the event loop every 1000 pages; here it runs beside
// it, on its own connection, whenever the store asks (checkpoints.ts). A PASSIVE checkpoint never
// blocks the writer or readers.

import { Database } from "bun:sqlite";

declare const self: Worker;

export interface CheckpointerStart {
  path: string;
}

/** The store asks for one checkpoint; the thread answers with a CheckpointDone of the same id. */
export interface CheckpointRequest {
  checkpoint: number;
}

/** Whether the checkpoint copied every frame the WAL held, so the next write may restart it. */
export interface CheckpointDone {
  done: number;
  complete: boolean;
}

/** What the thread tells the store, which logs it. */
export interface CheckpointerMessage {
  level: "warn" | "info";
  message: string;
  error?: string;
}

let checkpoint: (() => boolean) | undefined;
// A failure (a busy database, a full disk) is retried at the next request, and the writer's own
// safety-net checkpoint keeps the WAL bounded meanwhile. It is logged when it starts and when it
// ends, not ten times a second.
let failing = false;

self.onmessage = (event: MessageEvent<CheckpointerStart | CheckpointRequest>) => {
  const m = event.data;
  if ("path" in m) {
    const db = new Database(m.path, { strict: true });
    db.exec("PRAGMA busy_timeout = 5000");
    const statement = db.prepare<{ busy: number; log: number; checkpointed: number }, []>("PRAGMA wal_checkpoint(PASSIVE)");
    checkpoint = () => {
      const r = statement.get()!;
      return r.busy === 0 && r.log === r.checkpointed;
    };
    return;
  }
  let complete = false;
  try {
    complete = checkpoint!();
    if (failing) report({ level: "info", message: "background checkpoints work again" });
    failing = false;
  } catch (error) {
    if (!failing) report({ level: "warn", message: "background checkpoint failed, retrying every tick", error: (error as Error).message });
    failing = true;
  }
  self.postMessage({ done: m.checkpoint, complete } satisfies CheckpointDone);
};

const report = (m: CheckpointerMessage) => self.postMessage(m);
