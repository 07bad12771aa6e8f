// The writer holds still while a checkpoint runs, so that the next commit restarts the WAL
// (checkpoints.ts): with writes arriving all the time the WAL is written over in place and stays
// a few pages long, where it would otherwise grow by every commit until the safety net.
import { expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { createRequest } from "../protocol/testing-state";
import { inTempDir } from "../testing/temp-dir";
import { SqliteStore } from "./sqlite-store";

const MESSAGE = new Uint8Array(4096).fill(1);
const APPENDS = 1200;

test("under a steady stream of commits the WAL restarts instead of growing", async () => {
  await inTempDir(async (dir) => {
    const path = join(dir, "ursa.sqlite");
    const store = new SqliteStore({ path, sync: "full", checkpointEveryMs: 20, integrityCheckUrl: false });
    try {
      await store.create("wal-t/s", createRequest({ bucket: "wal-t", name: "s", contentType: "application/octet-stream" }));
      // Four closed-loop writers: some commit is always on its way.
      let left = APPENDS;
      const writer = async () => {
        while (left-- > 0) {
          const r = await store.append("wal-t/s", { contentType: "application/octet-stream", messages: [MESSAGE], close: false, streamSeq: null, producer: null, incarnation: null });
          expect(r.kind).toBe("accepted");
        }
      };
      await Promise.all([writer(), writer(), writer(), writer()]);
      // Each append is a 4 KiB page at least: a WAL that never restarted holds 4.7 MiB or more
      // (3.9-5.3 MB here with the writer not held back, 1.6-1.7 MB held, on a machine at load 10
      // where some checkpoints outlast the hold's 10 ms).
      const wal = statSync(`${path}-wal`).size;
      expect(wal).toBeLessThan((APPENDS * MESSAGE.length) / 2);
    } finally {
      await store.close();
    }
  });
});
