// The checkpoint thread. Copying WAL frames into the database file (and syncing it) is slow and
// would otherwise run inside some COMMIT on the event loop every 1000 pages; here it runs beside
// it, on its own connection, whenever the store asks (checkpoints.ts). A PASSIVE checkpoint never
// blocks the writer or readers.

import { Database } from "bun:sqlite";
import { statSync } from "node:fs";

declare const self: Worker;

export interface CheckpointerStart {
  path: string;
  /** A WAL grown past this in a burst is truncated once writes pause (open-database.ts WAL_SIZE_LIMIT). */
  walLimitBytes: number;
}

/** The store asks for one checkpoint; the thread answers with a CheckpointDone of the same id. */
export interface CheckpointRequest {
  checkpoint: number;
}

export interface CheckpointDone {
  done: number;
  /** Bytes of WAL frames it left uncopied (a reader still needs them), or null if it failed. */
  leftBytes: number | null;
}

/**
 * The store is stopping: the thread closes its connection and says so. Terminating the thread
 * would leave the connection open, and SQLite checkpoints and removes the WAL at close only for
 * the last connection: a stop then left a WAL that the next start must recover, which on a full
 * disk fails (rebuilding the -shm index needs room).
 */
export interface CheckpointerClose {
  close: true;
}

export interface CheckpointerClosed {
  closed: true;
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

let checkpoint: (() => number) | undefined;
let closeDb: (() => void) | undefined;
// A failure (a busy database, a full disk) is retried at the next request, and the writer's own
// safety-net checkpoint keeps the WAL bounded meanwhile. It is logged when it starts and when it
// ends, not ten times a second.
let failing = false;

/** Opens the thread's connection; the function it returns checkpoints and says how many bytes it left. */
function start({ path, walLimitBytes }: CheckpointerStart): () => number {
  const db = new Database(path, { strict: true });
  // close(true) finalizes the prepared statements and releases the connection now. Plain close()
  // leaves a connection with statements outstanding open, locks and all, until the garbage
  // collector finalizes them, and then the store's own close is not the last connection.
  closeDb = () => db.close(true);
  db.exec("PRAGMA busy_timeout = 5000");
  const passive = db.prepare<{ busy: number; log: number; checkpointed: number }, []>("PRAGMA wal_checkpoint(PASSIVE)");
  const truncate = db.prepare("PRAGMA wal_checkpoint(TRUNCATE)");
  const walBytes = () => statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
  // A frame is a page and its 24-byte header.
  const frameBytes = db.query<{ page_size: number }, []>("PRAGMA page_size").get()!.page_size + 24;
  let lastLog = -1;
  return () => {
    const { busy, log, checkpointed } = passive.get()!;
    // SQLite reuses a WAL from its start once it is checkpointed, but never shrinks it unless the
    // writer commits again (journal_size_limit): after a burst with nothing after it, a 1 GiB
    // WAL stayed 1 GiB. Caught up, with no write since the last checkpoint, it is truncated here.
    // TRUNCATE waits for readers and holds writers off; with no busy timeout it does neither,
    // and a busy database just means another try at the next request.
    if (busy === 0 && log === checkpointed && log === lastLog && walBytes() > walLimitBytes) {
      db.exec("PRAGMA busy_timeout = 0");
      try {
        truncate.get();
      } finally {
        db.exec("PRAGMA busy_timeout = 5000");
      }
    }
    lastLog = log;
    return Math.max(0, log - checkpointed) * frameBytes;
  };
}

self.onmessage = (event: MessageEvent<CheckpointerStart | CheckpointRequest | CheckpointerClose>) => {
  const m = event.data;
  if ("path" in m) {
    checkpoint = start(m);
    return;
  }
  if ("close" in m) {
    closeDb?.();
    self.postMessage({ closed: true } satisfies CheckpointerClosed);
    return;
  }
  let leftBytes: number | null = null;
  try {
    leftBytes = checkpoint!();
    if (failing) report({ level: "info", message: "background checkpoints work again" });
    failing = false;
  } catch (error) {
    if (!failing) report({ level: "warn", message: "background checkpoint failed, retrying every tick", error: (error as Error).message, code: (error as { code?: string }).code });
    failing = true;
  }
  self.postMessage({ done: m.checkpoint, leftBytes } satisfies CheckpointDone);
};
