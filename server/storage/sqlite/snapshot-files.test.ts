// Snapshot blobs as files beside the database (snapshot-files.ts): where they are, that the bytes
// read back exact through the two reused buffers, that nothing outlives what refers to it, what a
// crash leaves is swept after start, and that blobs written as chunk rows before version 8 still read.

import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { harness, type Harness } from "../../testing/app-harness";
import { openDatabase } from "./open-database";
import { CHUNK_BYTES, SnapshotBlobs, type SnapshotStaging } from "./snapshot-blobs";
import { SnapshotFiles } from "./snapshot-files";
import { failureOf } from "../write-health";

const OCTETS = { "Content-Type": "application/octet-stream" };
const at = (n: number) => `0000000000000000_${String(n).padStart(16, "0")}`;
let h: Harness;
let dir: string;
let path: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ursa-snapfiles-"));
  path = join(dir, "ursa.sqlite");
  h = harness({ path, maxSnapshotBytes: 16 * CHUNK_BYTES });
});
afterEach(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

const files = () => (existsSync(`${path}-snapshots`) ? readdirSync(`${path}-snapshots`).sort() : []);

async function created(name: string): Promise<void> {
  expect((await h.request("PUT", `/test-b/${name}`, { headers: OCTETS, body: "first" })).status).toBe(201);
}

async function published(name: string, bytes: Uint8Array): Promise<void> {
  expect((await h.request("PUT", `/test-b/${name}/snapshot/${at(5)}`, { headers: OCTETS, body: bytes })).status).toBe(204);
}

/** A newer snapshot, at a message appended for it; the older one is collected. */
async function replaced(name: string): Promise<void> {
  expect((await h.request("POST", `/test-b/${name}`, { headers: OCTETS, body: "more" })).status).toBe(204);
  expect((await h.request("PUT", `/test-b/${name}/snapshot/${at(9)}`, { headers: OCTETS, body: "newer" })).status).toBe(204);
  await h.store.reclaimed();
}

/** The snapshot part of a bootstrap answer: between the first part's head and the next delimiter. */
function snapshotPart(body: Uint8Array, contentType: string): Uint8Array {
  const boundary = /boundary=(\S+)/.exec(contentType)![1]!;
  const head = Buffer.from(`--${boundary}\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const end = Buffer.from(body).indexOf(`\r\n--${boundary}`, head.length);
  expect(Buffer.from(body.subarray(0, head.length)).equals(head)).toBe(true);
  return body.subarray(head.length, end);
}

describe("snapshot blobs in files", () => {
  test("a published snapshot is one file of exactly its bytes, and the database holds no chunk of it", async () => {
    await created("s");
    const bytes = randomBytes(2 * CHUNK_BYTES + 12_345);
    await published("s", bytes);
    expect(files()).toEqual(["1"]);
    expect(readFileSync(join(`${path}-snapshots`, "1")).equals(bytes)).toBe(true);
    const db = new Database(path, { readonly: true });
    expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM snapshot_chunks").get()!.n).toBe(0);
    expect(db.query<{ in_file: number }, []>("SELECT in_file FROM snapshot_blobs").get()!.in_file).toBe(1);
    db.close();
  });

  test("reads of several chunks are exact, through bootstrap (after a boundary scan) and the snapshot GET, twice at once", async () => {
    await created("s");
    // Every chunk different, and the boundary's fixed prefix in the middle one, so bootstrap reads
    // the blob through once to choose its boundary and then again to send it.
    const bytes = randomBytes(3 * CHUNK_BYTES + 1);
    Buffer.from("\r\n--ursa-").copy(bytes, CHUNK_BYTES + 77);
    await published("s", bytes);
    const [a, b] = await Promise.all([h.request("GET", "/test-b/s/bootstrap"), h.request("GET", "/test-b/s/bootstrap")]);
    for (const r of [a, b]) {
      expect(r.status).toBe(200);
      expect(Buffer.from(snapshotPart(new Uint8Array(await r.arrayBuffer()), r.headers.get("Content-Type")!)).equals(bytes)).toBe(true);
    }
    const [c, d] = await Promise.all([h.request("GET", `/test-b/s/snapshot/${at(5)}`), h.request("GET", `/test-b/s/snapshot/${at(5)}`)]);
    for (const r of [c, d]) expect(Buffer.from(await r.arrayBuffer()).equals(bytes)).toBe(true);
  });

  test("a replaced snapshot's file and a deleted stream's file are deleted once nothing refers to them", async () => {
    await created("s");
    await published("s", randomBytes(1000));
    await replaced("s");
    expect(files()).toEqual(["2"]);
    expect((await h.request("DELETE", "/test-b/s")).status).toBe(204);
    await h.store.reclaimed();
    expect(files()).toEqual([]);
  });

  test("a refused publish leaves no file: too large, or other bytes at the visible snapshot's offset", async () => {
    await created("s");
    const big = await h.request("PUT", `/test-b/s/snapshot/${at(5)}`, { headers: OCTETS, body: randomBytes(16 * CHUNK_BYTES + 1) });
    expect(big.status).toBe(413);
    await published("s", Buffer.from("state"));
    // Decided once the whole body is in: its digest is not the visible snapshot's.
    const other = await h.request("PUT", `/test-b/s/snapshot/${at(5)}`, { headers: OCTETS, body: randomBytes(CHUNK_BYTES + 1) });
    expect(other.status).toBe(409);
    await h.store.reclaimed();
    expect(files()).toEqual(["2"]);
    expect(await (await h.request("GET", `/test-b/s/snapshot/${at(5)}`)).text()).toBe("state");
  });

  test("an abandoned upload's file is deleted at once, before the transaction that drops its row: on a full disk that transaction needs the room", async () => {
    const upload = h.store.stageSnapshot() as SnapshotStaging;
    await upload.write(randomBytes(CHUNK_BYTES + 5));
    expect(files()).toEqual([String(upload.blobId)]);
    await upload.abandon();
    expect(files()).toEqual([]);
    await h.store.discardSnapshot(upload);
    await h.store.reclaimed();
    expect(files()).toEqual([]);
  });

  test("at start, a file without a row and a file a crash left staging are deleted; a published one stays", async () => {
    await created("s");
    const bytes = randomBytes(5000);
    await published("s", bytes);
    await h.close();
    const db = new Database(path);
    db.exec("INSERT INTO snapshot_blobs (id, staging, in_file) VALUES (7, 1, 1)");
    db.close(true);
    writeFileSync(join(`${path}-snapshots`, "7"), "half an upload");
    writeFileSync(join(`${path}-snapshots`, "9"), "a row the crash lost");
    h = harness({ path });
    await h.store.reclaimed();
    expect(files()).toEqual(["1"]);
    expect(Buffer.from(await (await h.request("GET", `/test-b/s/snapshot/${at(5)}`)).arrayBuffer()).equals(bytes)).toBe(true);
  });

  test("the sweep after start deletes a file without a row, but not one an upload took the id of while the sweep was listing", async () => {
    await h.close();
    const other = join(dir, "other.sqlite");
    const { db, lock } = openDatabase(other);
    try {
      const snapshotFiles = new SnapshotFiles(other);
      const blobs = new SnapshotBlobs(db, snapshotFiles);
      mkdirSync(snapshotFiles.dir);
      // Left by uploads whose rows a crash lost: 1 is the id the next upload gets.
      for (const id of ["1", "9"]) writeFileSync(snapshotFiles.path(Number(id)), "a row the crash lost");
      const sweep = blobs.removeOrphanFiles();
      // The directory is being listed, with 1 in it, when the upload takes id 1.
      const staging = blobs.stage();
      expect(staging.blobId).toBe(1);
      expect(await sweep).toBe(1);
      await staging.write(Buffer.from("the upload"));
      await staging.end();
      expect(readdirSync(snapshotFiles.dir)).toEqual(["1"]);
      expect(readFileSync(snapshotFiles.path(1), "utf8")).toBe("the upload");
    } finally {
      db.close(true);
      lock?.release();
    }
    h = harness({ path });
  });

  test("the files' bytes are measured off the event loop: all of them, again after a delete, none without the directory", async () => {
    const measuring = new SnapshotFiles(path);
    expect(await measuring.measure()).toBe(0);
    await created("s");
    await created("t");
    await published("s", randomBytes(3 * CHUNK_BYTES + 7));
    await published("t", randomBytes(1234));
    expect(await measuring.measure()).toBe(3 * CHUNK_BYTES + 7 + 1234);
    expect(measuring.bytes()).toBe(3 * CHUNK_BYTES + 7 + 1234);
    expect((await h.request("DELETE", "/test-b/s")).status).toBe(204);
    await h.store.reclaimed();
    expect(await measuring.measure()).toBe(1234);
  });

  test("the metrics report the bytes of a store's snapshot files, measured in the background", async () => {
    await created("s");
    await published("s", randomBytes(CHUNK_BYTES + 99));
    await h.close();
    h = harness({ path });
    await h.store.reclaimed();
    const gauge = async () => Number(/^ursa_snapshot_file_bytes (\d+)$/m.exec(await (await h.request("GET", "/__ursula/metrics")).text())?.[1]);
    for (let i = 0; i < 50 && (await gauge()) === 0; i++) await Bun.sleep(20);
    expect(await gauge()).toBe(CHUNK_BYTES + 99);
    expect(h.store.stats().snapshotFileBytes).toBe(CHUNK_BYTES + 99);
  });

  test("a blob kept as chunk rows (before schema version 8) reads as before, and its rows go when it is replaced", async () => {
    await created("s");
    const bytes = randomBytes(2 * CHUNK_BYTES + 3);
    await published("s", bytes);
    await h.close();
    // What version 7 wrote: the same blob as chunk rows, and no file.
    const db = new Database(path);
    const insert = db.prepare("INSERT INTO snapshot_chunks (blob_id, seq, data) VALUES (1, ?, ?)");
    for (let seq = 0; seq * CHUNK_BYTES < bytes.length; seq++) insert.run(seq, bytes.subarray(seq * CHUNK_BYTES, (seq + 1) * CHUNK_BYTES));
    db.exec("UPDATE snapshot_blobs SET in_file = 0");
    db.close(true);
    rmSync(join(`${path}-snapshots`, "1"));
    h = harness({ path });
    expect(Buffer.from(await (await h.request("GET", `/test-b/s/snapshot/${at(5)}`)).arrayBuffer()).equals(bytes)).toBe(true);
    const boot = await h.request("GET", "/test-b/s/bootstrap");
    expect(Buffer.from(snapshotPart(new Uint8Array(await boot.arrayBuffer()), boot.headers.get("Content-Type")!)).equals(bytes)).toBe(true);
    await replaced("s");
    const after = new Database(path, { readonly: true });
    expect(after.query<{ n: number }, []>("SELECT count(*) AS n FROM snapshot_chunks").get()!.n).toBe(0);
    after.close();
    expect(files()).toEqual(["2"]);
  });

  test("a lost snapshot file is a 500 STORAGE_CORRUPT before any byte of the answer, and the pin is let go", async () => {
    await created("s");
    await published("s", randomBytes(3000));
    rmSync(join(`${path}-snapshots`, "1"));
    for (const p of [`/test-b/s/snapshot/${at(5)}`, "/test-b/s/bootstrap"]) {
      const r = await h.request("GET", p);
      expect(r.status).toBe(500);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe("STORAGE_CORRUPT");
    }
    // Unpinned: replacing it collects its row, its file being gone already.
    await replaced("s");
    expect(files()).toEqual(["2"]);
    const db = new Database(path, { readonly: true });
    expect(db.query<{ id: number }, []>("SELECT id FROM snapshot_blobs").all()).toEqual([{ id: 2 }]);
    db.close();
  });

  test("a shortened snapshot file is a 500 STORAGE_CORRUPT before any byte of the answer, not a 200 cut short", async () => {
    await created("s");
    const bytes = randomBytes(CHUNK_BYTES + 500);
    await published("s", bytes);
    truncateSync(join(`${path}-snapshots`, "1"), CHUNK_BYTES);
    for (const p of [`/test-b/s/snapshot/${at(5)}`, "/test-b/s/bootstrap"]) {
      const r = await h.request("GET", p);
      expect(r.status).toBe(500);
      const { error } = (await r.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe("STORAGE_CORRUPT");
      expect(error.message).toContain(`holds ${CHUNK_BYTES} bytes, not the snapshot's ${CHUNK_BYTES + 500}`);
    }
    // Unpinned: replacing it collects it.
    await replaced("s");
    expect(files()).toEqual(["2"]);
  });

  test("a snapshot file's write that the disk refuses is a full disk (507), as SQLite's is", () => {
    expect(failureOf(Object.assign(new Error("no space"), { code: "ENOSPC" }))).toBe("full");
    expect(failureOf(Object.assign(new Error("read-only"), { code: "EROFS" }))).toBe("read-only");
  });
});
