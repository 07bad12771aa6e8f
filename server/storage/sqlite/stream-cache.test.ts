// The bounded stream cache and the maintained counts, in the cache alone and through the store:
// a store whose cache holds a handful of streams must answer exactly as one that holds them all.

import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { CreateRequest } from "../../protocol/create";
import type { StreamState } from "../../protocol/state";
import { createRequest } from "../../protocol/testing-state";
import { inTempDir } from "../../testing/temp-dir";
import { SqliteStore } from "./sqlite-store";
import { StreamCache } from "./stream-cache";

const state = (name: string) => ({ name }) as StreamState;
const create = (name: string, overrides: Partial<CreateRequest> = {}) => createRequest({ bucket: "c", name, contentType: "text/plain", ...overrides });
const bytes = (s: string) => new TextEncoder().encode(s);
const append = (text: string) => ({ contentType: "text/plain", messages: [bytes(text)], close: false, streamSeq: null, producer: null, incarnation: null });
const everything = { prefix: "", after: null, limit: 1000 };

describe("StreamCache", () => {
  test("loads on a miss, remembers a stream known absent, and evicts down to capacity", () => {
    const loads: string[] = [];
    const cache = new StreamCache((k) => (loads.push(k), k.startsWith("x") ? undefined : state(k)), 16);
    expect(cache.get("a")?.name).toBe("a");
    expect(cache.get("a")?.name).toBe("a");
    expect(cache.get("x")).toBeUndefined();
    expect(cache.peek("x")).toBeNull();
    expect(cache.get("x")).toBeUndefined();
    expect(loads).toEqual(["a", "x"]);
    for (let i = 0; i < 100; i++) cache.get(`s${i}`);
    cache.trim();
    expect(cache.size).toBe(16);
  });

  test("never evicts a pinned entry, and gives a used one a second chance", () => {
    const evicted: string[] = [];
    const cache = new StreamCache(state, 16);
    cache.pinWhile((k) => k === "pinned");
    cache.whenEvicted((k) => evicted.push(k));
    cache.get("pinned");
    cache.get("used");
    for (let i = 0; i < 40; i++) cache.get(`s${i}`);
    cache.get("used");
    cache.trim();
    expect(cache.peek("pinned")?.name).toBe("pinned");
    expect(cache.peek("used")?.name).toBe("used");
    expect(evicted).not.toContain("pinned");
    expect(evicted).not.toContain("used");
    expect(cache.size).toBe(16);
  });
});

describe("a store with a small cache", () => {
  test("answers as if it held every stream: states, producers, forks, listings and counts", async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, "ursa.sqlite");
      let store = new SqliteStore({ path, sync: "full", cachedStreams: 4 });
      for (let i = 0; i < 60; i++) await store.create(`c/s${String(i).padStart(2, "0")}`, create(`s${String(i).padStart(2, "0")}`));
      await store.append("c/s00", { ...append("hello"), producer: { id: "p", epoch: 2, seq: 0 }, streamSeq: "a" });
      await store.create("c/f", create("f", { fork: { sourceKey: "c/s00", offset: null, subOffset: null } }));
      for (let i = 1; i < 60; i++) await store.get(`c/s${String(i).padStart(2, "0")}`);
      // s00 was evicted long ago: reloaded, it still has its producer, Stream-Seq and fork.
      const s00 = (await store.get("c/s00"))!;
      expect(s00).toMatchObject({ tail: 5, lastSeq: "a", forkRefs: 1 });
      expect(s00.producers.get("p")).toMatchObject({ epoch: 2, lastSeq: 0 });
      // A duplicate is still recognized as one after eviction (spec §5.3).
      for (let i = 1; i < 60; i++) await store.get(`c/s${String(i).padStart(2, "0")}`);
      expect((await store.append("c/s00", { ...append("hello"), producer: { id: "p", epoch: 2, seq: 0 } })).kind).toBe("duplicate");
      expect((await store.counts()).streams).toBe(61);
      const page = await store.listStreams("c", everything);
      expect(page.items.length).toBe(61);
      expect(page.total).toBe(61);
      expect(page.items.find((s) => s.name === "s00")).toMatchObject({ tail: 5 });
      // The source goes soft: no longer a stream to a client, though its fork reads through it.
      expect((await store.delete("c/s00", null)).kind).toBe("deleted");
      for (let i = 1; i < 60; i++) await store.get(`c/s${String(i).padStart(2, "0")}`);
      expect((await store.get("c/s00"))?.softDeleted).toBe(true);
      expect((await store.counts()).streams).toBe(60);
      expect((await store.listStreams("c", everything)).items.length).toBe(60);
      await store.close();
      store = new SqliteStore({ path, sync: "full", cachedStreams: 4 });
      expect(await store.counts()).toEqual({ streams: 60, buckets: 1 });
      expect((await store.getBucket("c"))?.streams).toBe(60);
      expect((await store.listBuckets(everything)).items).toEqual([{ bucket: "c", streamCount: 60 }]);
      expect((await store.delete("c/f", null)).kind).toBe("deleted");
      expect(await store.get("c/s00")).toBeUndefined();
      expect((await store.counts()).streams).toBe(59);
      await store.close();
    });
  });

  test("counts leave out expired streams before they are reclaimed, and delete empties the bucket of them", async () => {
    await inTempDir(async (dir) => {
      let now = 1_000_000;
      const store = new SqliteStore({ path: join(dir, "ursa.sqlite"), sync: "full", cachedStreams: 4, now: () => now, sweepIntervalMs: 3_600_000 });
      await store.create("e/keep", create("keep", { bucket: "e" }));
      await store.create("e/ttl", create("ttl", { bucket: "e", lifetime: { ttlSeconds: 10, expiresAtMs: null } }));
      await store.create("e/at", create("at", { bucket: "e", lifetime: { ttlSeconds: null, expiresAtMs: now + 20_000 } }));
      expect((await store.getBucket("e"))?.streams).toBe(3);
      now += 9_000;
      // A read renews the TTL in memory without writing it (a quarter of the TTL has not passed)...
      await store.renewTtl("e/ttl");
      now += 2_000;
      // ...so the stream lives on past its stored deadline, and is counted.
      expect((await store.getBucket("e"))?.streams).toBe(3);
      expect((await store.counts()).streams).toBe(3);
      now += 10_000;
      expect((await store.getBucket("e"))?.streams).toBe(1);
      expect((await store.counts()).streams).toBe(1);
      expect(await store.listStreams("e", everything)).toMatchObject({ total: 1, items: [{ name: "keep" }] });
      expect(await store.listStreams("e", { ...everything, prefix: "t" })).toMatchObject({ total: 0, totalCapped: false, items: [] });
      expect(await store.deleteBucket("e")).toBe("not_empty");
      expect((await store.delete("e/keep", null)).kind).toBe("deleted");
      expect(await store.deleteBucket("e")).toBe("deleted");
      expect(await store.counts()).toEqual({ streams: 0, buckets: 0 });
      await store.close();
    });
  });

  test("a TTL renewal not yet written survives eviction: written first, the entry stays until it is durable", async () => {
    await inTempDir(async (dir) => {
      let now = 1_000_000;
      const store = new SqliteStore({ path: join(dir, "ursa.sqlite"), sync: "full", cachedStreams: 2, now: () => now, sweepIntervalMs: 3_600_000 });
      await store.create("t/ttl", create("ttl", { bucket: "t", lifetime: { ttlSeconds: 100, expiresAtMs: null } }));
      for (let i = 0; i < 20; i++) await store.create(`t/o${i}`, create(`o${i}`, { bucket: "t" }));
      now += 10_000;
      await store.renewTtl("t/ttl");
      // Reads of the others push the stream out of the two-entry cache, more than once.
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 20; i++) await store.get(`t/o${i}`);
        await Bun.sleep(5);
      }
      now += 95_000;
      // 105 s after creation, 95 s after the renewal: alive, however often it was reloaded.
      expect(await store.get("t/ttl")).toMatchObject({ name: "ttl", touchedAtMs: 1_010_000 });
      now += 10_000;
      expect(await store.get("t/ttl")).toBeUndefined();
      await store.close();
    });
  });
});
