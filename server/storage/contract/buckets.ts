// Buckets, listings and quotas (spec §2.1–§2.4; --max-buckets, --max-streams-per-bucket): what
// the store answers, in domain values; the wire format is the HTTP layer's.

import { describe, expect } from "bun:test";
import type { Store } from "../store";
import type { EngineFactory } from "./engine";
import { appendReq, contract, createReq, created, enc, expectError, T0 } from "./helpers";

const page = (prefix: string, after: string | null, limit: number) => ({ prefix, after, limit });

async function names(store: Store, bucket: string, prefix: string, limit: number): Promise<string[][]> {
  const pages: string[][] = [];
  let after: string | null = null;
  for (;;) {
    const p = await store.listStreams(bucket, page(prefix, after, limit));
    pages.push(p.items.map((s) => s.stream_id));
    expect(p.hasMore).toBe(p.nextCursor !== null);
    if (!p.hasMore) return pages;
    expect(p.nextCursor).toBe(p.items[p.items.length - 1]!.stream_id);
    after = p.nextCursor;
  }
}

export function buckets(factory: EngineFactory): void {
  const t = (title: string, run: Parameters<typeof contract>[2], options?: Parameters<typeof contract>[3]) => contract(factory, title, run, options);

  describe("buckets §2.1–§2.3", () => {
    t("§2.1/§2.2 a bucket is created once, then exists; a stream's create makes its bucket exist too", async ({ engine }) => {
      const { store } = engine;
      expect(await store.hasBucket("b1")).toBe(false);
      expect(await store.getBucket("b1")).toBeUndefined();
      expect(await store.putBucket("b1")).toBe("created");
      expect(await store.putBucket("b1")).toBe("exists");
      expect(await store.getBucket("b1")).toEqual({ bucket_id: "b1", streams: 0, created_at_ms: T0 });
      await created(store, "b2/s");
      expect(await store.hasBucket("b2")).toBe(true);
      expect(await store.counts()).toEqual({ streams: 1, buckets: 2 });
    });

    t("§2.2 a bucket counts its live streams: expired and soft-deleted ones are left out", async ({ engine, clock }) => {
      const { store } = engine;
      await created(store, "b/live");
      await created(store, "b/short", { lifetime: { ttlSeconds: 1, expiresAtMs: null } });
      await created(store, "b/src", { body: enc("x") });
      await created(store, "b/fork", { fork: { sourceKey: "b/src", offset: null, subOffset: null } });
      expect((await store.getBucket("b"))?.streams).toBe(4);
      await store.delete("b/src", null);
      clock.now += 1_000;
      expect((await store.getBucket("b"))?.streams).toBe(2);
    });

    t("§2.3 a bucket is deleted only when it holds no live stream; expired streams are purged, not counted", async ({ engine, clock }) => {
      const { store } = engine;
      expect(await store.deleteBucket("b")).toBe("missing");
      await created(store, "b/s");
      await created(store, "b/short", { lifetime: { ttlSeconds: 1, expiresAtMs: null } });
      expect(await store.deleteBucket("b")).toBe("not_empty");
      await store.delete("b/s", null);
      expect(await store.deleteBucket("b")).toBe("not_empty");
      clock.now += 1_000;
      expect(await store.deleteBucket("b")).toBe("deleted");
      expect(await store.hasBucket("b")).toBe(false);
      expect(await store.get("b/short")).toBeUndefined();
    });
  });

  describe("listings §2.4", () => {
    t("§2.4 streams are listed bytewise by ID, filtered by prefix, a page at a time with an exclusive cursor", async ({ engine }) => {
      const { store } = engine;
      for (const name of ["b", "a/2", "a/10", "a/1", "B", "ab", "a/3"]) await created(store, `l/${name}`);
      await created(store, "other/a/0");
      expect(await names(store, "l", "", 1000)).toEqual([["B", "a/1", "a/10", "a/2", "a/3", "ab", "b"]]);
      expect(await names(store, "l", "a/", 2)).toEqual([["a/1", "a/10"], ["a/2", "a/3"]]);
      const first = await store.listStreams("l", page("a", null, 3));
      expect(first).toMatchObject({ total: 5, hasMore: true, nextCursor: "a/2" });
      const rest = await store.listStreams("l", page("a", "a/2", 3));
      expect(rest).toMatchObject({ total: 5, hasMore: false, nextCursor: null });
      expect(rest.items.map((s) => s.stream_id)).toEqual(["a/3", "ab"]);
      expect((await store.listStreams("l", page("", "b", 10))).items).toEqual([]);
    });

    t("§2.4 a listing entry reports the stream's state, and expired and soft-deleted streams are left out", async ({ engine, clock }) => {
      const { store } = engine;
      const state = await created(store, "l/open", { body: enc("abc") });
      await created(store, "l/closed", { close: true });
      await created(store, "l/short", { lifetime: { ttlSeconds: 1, expiresAtMs: null } });
      await created(store, "l/src");
      await created(store, "l/zfork", { fork: { sourceKey: "l/src", offset: null, subOffset: null } });
      await store.delete("l/src", null);
      clock.now += 1_000;
      await store.append("l/open", appendReq(["de"]));
      const listed = await store.listStreams("l", page("", null, 2));
      expect(listed.total).toBe(3);
      expect(listed.items.map((s) => s.stream_id)).toEqual(["closed", "open"]);
      expect(listed.items[1]).toMatchObject({ status: "Open", tail_offset: 5, incarnation: state.incarnation, content_type: "text/plain", last_write_at_ms: clock.now });
      expect(listed.items[0]).toMatchObject({ status: "Closed" });
      expect((await store.listStreams("l", page("", "open", 2))).items.map((s) => s.stream_id)).toEqual(["zfork"]);
    });

    t("§2.4 buckets are listed in order a page at a time, each with its live stream count", async ({ engine, clock }) => {
      const { store } = engine;
      for (const b of ["c", "a", "b"]) await store.putBucket(b);
      await created(store, "b/one");
      await created(store, "b/two");
      await created(store, "b/short", { lifetime: { ttlSeconds: 1, expiresAtMs: null } });
      await created(store, "b/src");
      await created(store, "b/zfork", { fork: { sourceKey: "b/src", offset: null, subOffset: null } });
      await store.delete("b/src", null);
      await store.delete("b/zfork", null);
      clock.now += 1_000;
      const first = await store.listBuckets(page("", null, 2));
      expect(first).toMatchObject({ total: 3, hasMore: true, nextCursor: "b" });
      expect(first.items).toEqual([{ bucket_id: "a", stream_count: 0 }, { bucket_id: "b", stream_count: 2 }]);
      expect(await store.listBuckets(page("", "b", 2))).toMatchObject({ items: [{ bucket_id: "c", stream_count: 0 }], hasMore: false, nextCursor: null });
    });
  });

  describe("quotas", () => {
    t("quotas §7.1: an expired stream is absent, so it holds no place under --max-streams-per-bucket", async ({ engine, clock }) => {
      const { store } = engine;
      await created(store, "q/live");
      await created(store, "q/short", { lifetime: { ttlSeconds: 1, expiresAtMs: null } });
      expectError(await store.create("q/next", createReq("q/next")), "QUOTA_EXCEEDED");
      clock.now += 1_000;
      expect((await store.create("q/next", createReq("q/next"))).kind).toBe("created");
      expect(await store.get("q/short")).toBeUndefined();
    }, { quotas: { maxBuckets: Infinity, maxStreamsPerBucket: 2 } });


    t("quotas: a bucket past --max-buckets is refused, by PUT of a bucket or of a stream in a new one, creating nothing", async ({ engine }) => {
      const { store } = engine;
      expect(await store.putBucket("q1")).toBe("created");
      await created(store, "q2/s");
      expectError(await store.putBucket("q3"), "QUOTA_EXCEEDED");
      expectError(await store.create("q3/s", createReq("q3/s")), "QUOTA_EXCEEDED");
      expect(await store.hasBucket("q3")).toBe(false);
      expect(await store.get("q3/s")).toBeUndefined();
      expect((await store.create("q1/s", createReq("q1/s"))).kind).toBe("created");
      expect(await store.deleteBucket("q1")).toBe("not_empty");
      await store.delete("q1/s", null);
      expect(await store.deleteBucket("q1")).toBe("deleted");
      expect(await store.putBucket("q3")).toBe("created");
    }, { quotas: { maxBuckets: 2, maxStreamsPerBucket: Infinity } });

    t("quotas: streams past --max-streams-per-bucket are refused, even when their creates share one transaction; a delete makes room", async ({ engine }) => {
      const { store } = engine;
      await created(store, "q/a");
      const together = await Promise.all(["b", "c", "d"].map((n) => store.create(`q/${n}`, createReq(`q/${n}`))));
      expect(together.map((o) => (o.kind === "error" ? o.code : o.kind)).sort()).toEqual(["QUOTA_EXCEEDED", "QUOTA_EXCEEDED", "created"]);
      expect((await store.listStreams("q", page("", null, 10))).total).toBe(2);
      // An existing stream's re-PUT is no new stream.
      expect((await store.create("q/a", createReq("q/a"))).kind).toBe("exists");
      await store.delete("q/a", null);
      expect((await store.create("q/e", createReq("q/e"))).kind).toBe("created");
    }, { quotas: { maxBuckets: Infinity, maxStreamsPerBucket: 2 } });
  });
}
