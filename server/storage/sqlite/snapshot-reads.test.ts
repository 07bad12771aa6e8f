// The snapshot read thread (snapshot-reads.ts): chunks asked for together each arrive exact, and
// a chunk that is not there fails its own read with the thread's error, not the thread.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { inTempDir } from "../../testing/temp-dir";
import { openDatabase } from "./open-database";
import { SnapshotReads } from "./snapshot-reads";

const URL_OF_THREAD = new URL("./snapshot-read-thread.ts", import.meta.url);

test("chunks read on the thread are the stored bytes, and a missing chunk rejects its read only", async () => {
  await inTempDir(async (dir) => {
    const path = join(dir, "ursa.sqlite");
    const { db, lock } = openDatabase(path);
    const blobId = Number(db.prepare("INSERT INTO snapshot_blobs (staging) VALUES (0)").run().lastInsertRowid);
    const stored = [0, 1, 2].map((seq) => Uint8Array.from({ length: 1024 * 1024 - seq }, (_, i) => (i * 31 + seq) & 0xff));
    const insert = db.prepare("INSERT INTO snapshot_chunks (blob_id, seq, data) VALUES (?, ?, ?)");
    stored.forEach((bytes, seq) => insert.run(blobId, seq, bytes));
    const reads = new SnapshotReads(URL_OF_THREAD, path);
    try {
      // Asked for together, as a reader with a chunk read ahead asks: each answer is its own.
      const chunks = await Promise.all([2, 0, 1].map((seq) => reads.chunk(blobId, seq)));
      expect(chunks.map((c) => c.length)).toEqual([stored[2]!.length, stored[0]!.length, stored[1]!.length]);
      expect(Buffer.from(chunks[0]!).equals(Buffer.from(stored[2]!))).toBe(true);
      expect(Buffer.from(chunks[1]!).equals(Buffer.from(stored[0]!))).toBe(true);
      expect(Buffer.from(chunks[2]!).equals(Buffer.from(stored[1]!))).toBe(true);
      const missing = await reads.chunk(blobId, 3).then(() => null, (error: Error) => error.message);
      expect(missing).toBe(`snapshot blob ${blobId} has no chunk 3`);
      expect(Buffer.from(await reads.chunk(blobId, 1)).equals(Buffer.from(stored[1]!))).toBe(true);
    } finally {
      await reads.close();
      db.close();
      lock?.release();
    }
  });
});
