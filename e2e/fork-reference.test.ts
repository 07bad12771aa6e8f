// Forks by reference against the compiled binary (spec §7.4): a fork of a 32 MiB stream stores
// none of its bytes (the data directory does not grow by them), reads through to its source across
// the fork point, survives kill -9 and the source's deletion byte for byte, and once the last
// reader is gone the space is given back to later writes.
//
// Every message stays in its row (--segment-mb 0), so the database file's size measures what the
// reclaimer gave back and nothing else. With segment files it also depends on how many runs moved
// out while the writes were still coming in, whose pages those writes then reused: a run that
// moved early in one phase and late in the next made the file grow by one run, 8 MiB. Forks over
// segment files are tested in server/http/segment-reads.test.ts and e2e/segment-files.test.ts.
import { statSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { caughtUp, startUrsa, type UrsaProcess } from "./server-process.ts";

const ROWS_ONLY = ["--segment-mb", "0"];

const MIB = 1024 * 1024;
const at = (n: number) => `0000000000000000_${String(n).padStart(16, "0")}`;
const dirBytes = (dir: string) => readdirSync(dir).reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);

/**
 * A size once the store has caught up (its reclaim steps done) and the background checkpoints
 * are done with what was written: a checkpoint, every 100 ms after a commit, copies WAL frames
 * into ursa.sqlite and keeps the WAL file for reuse, so between writes and their checkpoint the
 * sizes still grow. Stable across five samples 100 ms apart.
 */
async function settledBytes(measure: () => number): Promise<number> {
  await caughtUp(u);
  let last = measure();
  for (let same = 0, tries = 0; same < 5 && tries < 200; tries++) {
    await new Promise((r) => setTimeout(r, 100));
    const now = measure();
    same = now === last ? same + 1 : 0;
    last = now;
  }
  return last;
}

/** 32 distinct 1 MiB messages, so a byte read from the wrong place shows. */
const message = (i: number) => new Uint8Array(MIB).fill(i + 1);

let u: UrsaProcess;
beforeAll(async () => {
  u = await startUrsa({ args: ROWS_ONLY });
});
afterAll(async () => {
  await u.stop();
  u.cleanup();
});

async function bytes(path: string, offset: number, maxBytes?: number): Promise<Uint8Array> {
  const res = await fetch(`${u.url}${path}?offset=${at(offset)}${maxBytes ? `&max_bytes=${maxBytes}` : ""}`);
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

/** Every byte from `offset` on, following Stream-Next-Offset to the tail. */
async function readAll(path: string, offset = 0): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for (;;) {
    const res = await fetch(`${u.url}${path}?offset=${at(offset)}`);
    expect(res.status).toBe(200);
    parts.push(new Uint8Array(await res.arrayBuffer()));
    offset = Number(res.headers.get("Stream-Next-Offset")!.split("_")[1]);
    if (res.headers.get("Stream-Up-To-Date") === "true") break;
  }
  return new Uint8Array(Buffer.concat(parts));
}

describe("a fork of a 32 MiB stream", () => {
  const src = "/e2e-test/fork-ref-src";
  test("stores none of its source's bytes, reads through across the fork point, and keeps them through kill -9 and the source's delete", async () => {
    expect((await fetch(`${u.url}${src}`, { method: "PUT", headers: { "Content-Type": "application/octet-stream" } })).status).toBe(201);
    for (let i = 0; i < 32; i++) {
      const res = await fetch(`${u.url}${src}`, { method: "POST", headers: { "Content-Type": "application/octet-stream" }, body: message(i) });
      expect(res.status).toBe(204);
    }
    const before = await settledBytes(() => dirBytes(u.dataDir));
    const forked = await fetch(`${u.url}/e2e-test/fork-ref-f`, { method: "PUT", headers: { "Stream-Forked-From": src, "Stream-Fork-Offset": at(16 * MIB) } });
    expect(forked.status).toBe(201);
    const own = new TextEncoder().encode("own");
    expect((await fetch(`${u.url}/e2e-test/fork-ref-f`, { method: "POST", headers: { "Content-Type": "application/octet-stream" }, body: own })).status).toBe(204);
    // A copy would have added 16 MiB (and its WAL as much again).
    expect((await settledBytes(() => dirBytes(u.dataDir))) - before).toBeLessThan(2 * MIB);

    const across = await bytes("/e2e-test/fork-ref-f", 16 * MIB - 2);
    expect([...across]).toEqual([16, 16, 0x6f, 0x77, 0x6e]);
    const expected = new Uint8Array(Buffer.concat([...Array.from({ length: 16 }, (_, i) => message(i)), own]));
    expect(Buffer.from(await readAll("/e2e-test/fork-ref-f")).equals(Buffer.from(expected))).toBe(true);

    await u.kill();
    u = await startUrsa({ dataDir: u.dataDir, args: ROWS_ONLY });
    expect((await fetch(`${u.url}${src}`, { method: "DELETE" })).status).toBe(204);
    expect((await fetch(`${u.url}${src}`)).status).toBe(410);
    expect(Buffer.from(await readAll("/e2e-test/fork-ref-f")).equals(Buffer.from(expected))).toBe(true);
    expect(Buffer.from(await bytes("/e2e-test/fork-ref-f", 3 * MIB + 5, 3)).equals(Buffer.from(message(3).subarray(0, 3)))).toBe(true);

    // The last reader goes: the source's rows go too, and later writes reuse their pages.
    expect((await fetch(`${u.url}/e2e-test/fork-ref-f`, { method: "DELETE" })).status).toBe(204);
    expect((await fetch(`${u.url}${src}`, { method: "PUT", headers: { "Content-Type": "application/octet-stream" } })).status).toBe(201);
    // The database file, once the reclaimer and the checkpoint thread have had their turn: the
    // WAL grows with any write, freed pages or not.
    const database = join(u.dataDir, "ursa.sqlite");
    const freed = await settledBytes(() => statSync(database).size);
    for (let i = 0; i < 16; i++) {
      const res = await fetch(`${u.url}${src}`, { method: "POST", headers: { "Content-Type": "application/octet-stream" }, body: message(i) });
      expect(res.status).toBe(204);
    }
    expect((await settledBytes(() => statSync(database).size)) - freed).toBeLessThan(4 * MIB);
  }, 120_000);

  test("a kill -9 straight after the last fork's delete still gives the soft-deleted source's space back after the restart", async () => {
    const source = "/e2e-test/fork-crash-src";
    const fork = "/e2e-test/fork-crash-f";
    expect((await fetch(`${u.url}${source}`, { method: "PUT", headers: { "Content-Type": "application/octet-stream" } })).status).toBe(201);
    for (let i = 0; i < 32; i++) {
      expect((await fetch(`${u.url}${source}`, { method: "POST", headers: { "Content-Type": "application/octet-stream" }, body: message(i) })).status).toBe(204);
    }
    expect((await fetch(`${u.url}${fork}`, { method: "PUT", headers: { "Stream-Forked-From": source, "Stream-Fork-Offset": at(16 * MIB) } })).status).toBe(201);
    expect((await fetch(`${u.url}${source}`, { method: "DELETE" })).status).toBe(204);
    const database = join(u.dataDir, "ursa.sqlite");
    const full = await settledBytes(() => statSync(database).size);
    // The source's 32 MiB are reclaimed in bounded steps after this delete is durable: the kill
    // lands before they are done, and the restart must finish them.
    expect((await fetch(`${u.url}${fork}`, { method: "DELETE" })).status).toBe(204);
    await u.kill();
    u = await startUrsa({ dataDir: u.dataDir, args: ROWS_ONLY });
    expect((await fetch(`${u.url}${source}`)).status).toBe(404);
    expect((await fetch(`${u.url}${source}`, { method: "PUT", headers: { "Content-Type": "application/octet-stream" } })).status).toBe(201);
    // The restart queued the rest of the source's reclaim before it listened.
    await caughtUp(u);
    for (let i = 0; i < 24; i++) {
      expect((await fetch(`${u.url}${source}`, { method: "POST", headers: { "Content-Type": "application/octet-stream" }, body: message(i) })).status).toBe(204);
    }
    // 24 MiB written into the pages the old 32 MiB left: the file does not grow past what it was.
    expect((await settledBytes(() => statSync(database).size)) - full).toBeLessThan(4 * MIB);
    expect(Buffer.from(await readAll(source)).equals(Buffer.from(Buffer.concat(Array.from({ length: 24 }, (_, i) => message(i)))))).toBe(true);
  }, 120_000);
});
