// A listing page shows the durable state: the row where it is that, and the cached state only
// for the streams whose row may differ from it (listing.ts), looked up for those alone.

import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { join } from "node:path";
import { createRequest, streamState } from "../../protocol/testing-state";
import { inTempDir } from "../../testing/temp-dir";
import { Listing } from "./listing";
import { SCHEMA } from "./schema";
import { SqliteStore } from "./sqlite-store";

const everything = { prefix: "", after: null, limit: 100 };
const OCTET = "application/octet-stream";
const append = (text: string) => ({ contentType: OCTET, messages: [new TextEncoder().encode(text)], close: false, streamSeq: null, producer: null, incarnation: null });

test("rows are listed as they are; a stream whose row may differ is listed from the cache, or left out when absent there", () => {
  const db = new Database(":memory:", { strict: true });
  db.exec(SCHEMA);
  const insert = db.prepare(
    `INSERT INTO streams (bucket, name, incarnation, content_type, tail, message_count, closed, touched_at_ms, created_at_ms) VALUES ('b', ?, '1', 't', ?, 0, 0, 0, 0)`,
  );
  for (const [name, tail] of [["a", 1], ["ahead", 2], ["behind", 3], ["uncreated", 0], ["undeleted", 4]] as const) insert.run(name, tail);
  const ids = Object.fromEntries(db.query<{ id: number; name: string }, []>("SELECT id, name FROM streams").all().map((r) => [r.name, r.id]));
  // What the cache holds: the durable states of the streams whose row is ahead of or behind them.
  const cached = new Map([
    ["b/a", streamState({ bucket: "b", name: "a", tail: 99 })],
    ["b/ahead", streamState({ bucket: "b", name: "ahead", tail: 1 })],
    ["b/uncreated", null],
    ["b/undeleted", streamState({ bucket: "b", name: "undeleted", tail: 4, softDeleted: true })],
  ]);
  const differ = new Set(["b/ahead", "b/uncreated", "b/undeleted"]);
  const peeked: string[] = [];
  const loaded: string[] = [];
  const listing = new Listing(db, {
    rowMayDiffer: (bucket, name, id) => differ.has(`${bucket}/${name}`) || id === ids.behind,
    peek: (key) => (peeked.push(key), cached.get(key)),
    get: (key) => (loaded.push(key), key === "b/behind" ? streamState({ bucket: "b", name: "behind", tail: 7 }) : undefined),
    now: () => 0,
    count: () => ({ n: 2, capped: false }),
  });
  const page = listing.streams("b", everything);
  expect(page.items.map((s) => [s.name, s.tail])).toEqual([
    ["a", 1],
    ["ahead", 1],
    ["behind", 7],
  ]);
  // The cache is asked about the streams that may differ, and no other.
  expect(peeked.sort()).toEqual(["b/ahead", "b/behind", "b/uncreated", "b/undeleted"]);
  expect(loaded).toEqual(["b/behind"]);
});

test("a stream whose row is behind its log is listed with its durable tail, and so after a restart", async () => {
  await inTempDir(async (dir) => {
    const path = join(dir, "ursa.sqlite");
    const store = new SqliteStore({ path, sync: "full", materializeEveryMs: 3_600_000, cachedStreams: 4 });
    for (const name of ["hot", "cold"]) await store.create(`l/${name}`, createRequest({ bucket: "l", name, contentType: OCTET }));
    expect((await store.append("l/hot", append("hello"))).kind).toBe("accepted");
    // Other streams pass through the four-entry cache: a lookup by chance cannot be what shows the tail.
    for (let i = 0; i < 8; i++) await store.create(`o/s${i}`, createRequest({ bucket: "o", name: `s${i}`, contentType: OCTET }));
    const rowTail = () => {
      const reader = new Database(path, { readonly: true });
      try {
        return reader.query<{ tail: number }, []>("SELECT tail FROM streams WHERE bucket = 'l' AND name = 'hot'").get()!.tail;
      } finally {
        reader.close();
      }
    };
    expect(rowTail()).toBe(0);
    const tails = async () => (await store.listStreams("l", everything)).items.map((s) => [s.name, s.tail]);
    expect(await tails()).toEqual([
      ["cold", 0],
      ["hot", 5],
    ]);
    await store.close();
    const reopened = new SqliteStore({ path, sync: "full", cachedStreams: 4 });
    expect((await reopened.listStreams("l", everything)).items.map((s) => [s.name, s.tail])).toEqual([
      ["cold", 0],
      ["hot", 5],
    ]);
    await reopened.close();
  });
});

test("a stream whose TTL renewal is not yet written is listed past its row's deadline", async () => {
  await inTempDir(async (dir) => {
    let now = 1_000_000;
    const store = new SqliteStore({ path: join(dir, "ursa.sqlite"), sync: "full", cachedStreams: 4, now: () => now, sweepIntervalMs: 3_600_000 });
    await store.create("t/ttl", createRequest({ bucket: "t", name: "ttl", contentType: OCTET, lifetime: { ttlSeconds: 10, expiresAtMs: null } }));
    now += 9_000;
    // Within a quarter of the TTL of the touch last written: renewed in memory only.
    await store.renewTtl("t/ttl");
    now += 2_000;
    expect((await store.listStreams("t", everything)).items.map((s) => s.name)).toEqual(["ttl"]);
    now += 10_000;
    expect((await store.listStreams("t", everything)).items).toEqual([]);
    await store.close();
  });
});
