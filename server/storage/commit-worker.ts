// The commit thread: owns the writing connection. Each message is one transaction; with
// synchronous=FULL its COMMIT returns only once the WAL is on disk. Blocking here costs the
// event loop nothing, which is the point of this thread.

import { Database } from "bun:sqlite";
import { SqlWriter, type SqlOp } from "./sql-ops";

declare const self: Worker;

export type ToWorker = { type: "open"; path: string; sync: "full" | "normal" } | { type: "commit"; seq: number; ops: SqlOp[] } | { type: "close" };
export type FromWorker = { type: "committed"; seq: number } | { type: "failed"; seq: number; error: string } | { type: "closed" };

let db: Database | undefined;
let writer: SqlWriter | undefined;

self.onmessage = (event: MessageEvent<ToWorker>) => {
  const msg = event.data;
  switch (msg.type) {
    case "open":
      db = new Database(msg.path, { strict: true });
      db.exec("PRAGMA journal_mode = WAL");
      db.exec(`PRAGMA synchronous = ${msg.sync === "full" ? "FULL" : "NORMAL"}`);
      db.exec("PRAGMA busy_timeout = 5000");
      writer = new SqlWriter(db);
      return;
    case "commit":
      try {
        writer!.transaction(msg.ops);
        self.postMessage({ type: "committed", seq: msg.seq } satisfies FromWorker);
      } catch (error) {
        self.postMessage({ type: "failed", seq: msg.seq, error: String((error as Error)?.message ?? error) } satisfies FromWorker);
      }
      return;
    case "close":
      db?.close();
      self.postMessage({ type: "closed" } satisfies FromWorker);
      return;
  }
};
