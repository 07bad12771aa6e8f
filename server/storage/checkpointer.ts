// The checkpoint thread. Copying WAL frames into the database file (and syncing it) is slow and
// would otherwise run inside some COMMIT on the event loop every 1000 pages; here it runs beside
// it, on its own connection. A PASSIVE checkpoint never blocks the writer or readers.

import { Database } from "bun:sqlite";

declare const self: Worker;

export interface CheckpointerStart {
  path: string;
  intervalMs: number;
}

/** What the thread tells the store, which logs it. */
export interface CheckpointerMessage {
  level: "warn" | "info";
  message: string;
  error?: string;
  /** SQLite's code for the error: SQLITE_FULL makes the store full (full-disk.ts). */
  code?: string;
}

const report = (m: CheckpointerMessage) => self.postMessage(m);

self.onmessage = (event: MessageEvent<CheckpointerStart>) => {
  const db = new Database(event.data.path, { strict: true });
  db.exec("PRAGMA busy_timeout = 5000");
  const checkpoint = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");
  // A failure (a busy database, a full disk) is retried at the next tick, and the writer's own
  // safety-net checkpoint keeps the WAL bounded meanwhile. It is logged when it starts and when it
  // ends, not ten times a second.
  let failing = false;
  setInterval(() => {
    try {
      checkpoint.get();
      if (failing) report({ level: "info", message: "background checkpoints work again" });
      failing = false;
    } catch (error) {
      if (!failing) report({ level: "warn", message: "background checkpoint failed, retrying every tick", error: (error as Error).message, code: (error as { code?: string }).code });
      failing = true;
    }
  }, event.data.intervalMs);
};
