// A damaged page under one stream, found by a read, with the integrity check off: only that stream
// fails (reads of its damaged range, and every write to it), once logged; the others go on.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { createRequest } from "../../protocol/testing-state";
import { inTempDir } from "../../testing/temp-dir";
import { SqliteStore } from "./sqlite-store";
import type { StoreLog } from "../store-log";
import { StorageFault } from "../write-health";

const MARK = 0xab;
const PAGE = 4096;
const append = (message: Uint8Array) => ({ contentType: "application/octet-stream", messages: [message], close: false, streamSeq: null, producer: null, incarnation: null });

test("a read that meets a damaged page fails that stream alone, refuses its writes, and is logged once", async () => {
  await inTempDir(async (dir) => {
    const path = join(dir, "ursa.sqlite");
    const lines: string[] = [];
    const log: StoreLog = (level, message, fields) => lines.push(`${level} ${message} ${JSON.stringify(fields)}`);
    const open = () => new SqliteStore({ path, sync: "full", integrityCheckUrl: false, log });
    let store = open();
    for (const name of ["a", "b"]) await store.create(`dmg-t/${name}`, createRequest({ bucket: "dmg-t", name, contentType: "application/octet-stream" }));
    for (let i = 0; i < 8; i++) await store.append("dmg-t/a", append(new Uint8Array(65536).fill(MARK)));
    await store.append("dmg-t/b", append(new Uint8Array([1, 2, 3])));
    await store.close();
    // Every message in ursa.sqlite itself: a connection the store left open would keep the
    // checkpoint busy (1), and a's pages in the WAL.
    const checkpoint = new Database(path);
    expect(checkpoint.query<{ busy: number }, []>("PRAGMA wal_checkpoint(TRUNCATE)").get()!.busy).toBe(0);
    checkpoint.close();

    // An overflow page of one of a's messages: its next-page number past the end, garbage after.
    const bytes = readFileSync(path);
    let target = -1;
    for (let p = 0; (p + 1) * PAGE <= bytes.length && target < 0; p++) if (bytes.subarray(p * PAGE + 4, (p + 1) * PAGE).every((b) => b === MARK)) target = p;
    expect(target).toBeGreaterThan(0);
    const garbage = Buffer.alloc(PAGE, 0x5a);
    garbage.writeUInt32BE(0xfffffff0, 0);
    const fd = openSync(path, "r+");
    writeSync(fd, garbage, 0, PAGE, target * PAGE);
    closeSync(fd);

    store = open();
    try {
      const a = (await store.get("dmg-t/a"))!;
      for (let i = 0; i < 3; i++) await expect(store.readRange(a, 0, 1 << 20, false)).rejects.toThrow(StorageFault);
      // The rest of the store reads and writes.
      const b = (await store.get("dmg-t/b"))!;
      expect([...(await store.readRange(b, 0, 100, false)).chunks[0]!]).toEqual([1, 2, 3]);
      expect((await store.append("dmg-t/b", append(new Uint8Array([4])))).kind).toBe("accepted");
      expect(store.writeState()).toBe("ok");
      // The damaged stream takes no write, nor a delete.
      await expect(store.append("dmg-t/a", append(new Uint8Array([9])))).rejects.toBeInstanceOf(StorageFault);
      await expect(store.delete("dmg-t/a", null)).rejects.toBeInstanceOf(StorageFault);
      expect(store.stats()).toMatchObject({ damagedReads: 3, damagedStreams: 1 });
      expect(lines.filter((l) => l.includes("damaged database page"))).toEqual([expect.stringContaining('"stream":"dmg-t/a"')]);
    } finally {
      await store.close();
    }
  });
});
