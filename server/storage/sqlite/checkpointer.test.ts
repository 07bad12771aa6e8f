import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { inTempDir } from "../../testing/temp-dir";
import type { CheckpointDone, CheckpointerStart, CheckpointRequest } from "./checkpointer";

const walBytes = (path: string) => statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;

/**
 * A database whose WAL holds a 2 MiB burst, and a checkpoint thread started on it with
 * `walLimitBytes`, asked for a checkpoint every 20 ms as the store asks every 100.
 */
async function afterBurst(limit: (burst: number) => number, check: (path: string, burst: number, db: Database) => Promise<void>): Promise<void> {
  await inTempDir(async (dir) => {
    const path = join(dir, "w.sqlite");
    const db = new Database(path, { create: true });
    db.exec("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE t (b BLOB)");
    const insert = db.prepare("INSERT INTO t VALUES (?)");
    db.transaction(() => {
      for (let i = 0; i < 64; i++) insert.run(new Uint8Array(32 * 1024));
    })();
    const burst = walBytes(path);
    expect(burst).toBeGreaterThan(2 * 1024 * 1024);
    const worker = new Worker(new URL("./checkpointer.ts", import.meta.url));
    let asked = 0;
    worker.onmessage = (event: MessageEvent<CheckpointDone>) => {
      if (event.data.done === asked) setTimeout(() => worker.postMessage({ checkpoint: ++asked } satisfies CheckpointRequest), 20);
    };
    try {
      worker.postMessage({ path, walLimitBytes: limit(burst) } satisfies CheckpointerStart);
      worker.postMessage({ checkpoint: ++asked } satisfies CheckpointRequest);
      // Measured while the thread runs: its connection closing would reset the WAL by itself.
      await check(path, burst, db);
    } finally {
      await worker.terminate();
      db.close();
    }
  });
}

test("a WAL grown past its limit in a burst is truncated once writes pause", async () => {
  await afterBurst(
    () => 1024 * 1024,
    async (path, burst, db) => {
      let size = burst;
      for (let i = 0; i < 50 && size > 0; i++) {
        await new Promise((r) => setTimeout(r, 20));
        size = walBytes(path);
      }
      expect(size).toBe(0);
      expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM t").get()!.n).toBe(64);
    },
  );
});

test("a WAL within its limit is checkpointed and kept, to be reused by the writes to come", async () => {
  await afterBurst(
    (burst) => burst + 1,
    async (path, burst) => {
      await new Promise((r) => setTimeout(r, 300));
      expect(walBytes(path)).toBe(burst);
    },
  );
});
