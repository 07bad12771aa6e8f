// Buckets, listings and quotas (spec §2.1–§2.4; --max-buckets, --max-streams-per-bucket): what
// the store answers, in domain values; the wire format is the HTTP layer's.

import { describe, expect } from "bun:test";
import type { Store } from "../store";
import type { EngineFactory } from "./engine";
import { appendReq, contract, createReq, created, enc, expectError, messagesOf, T0 } from "./helpers";

const page = (prefix: string, after: string | null, limit: number) => ({ prefix, after, limit });

async function names(store: Store, bucket: string, prefix: string, limit: number): Promise<string[][]> {
  const pages: string[][] = [];
  let after: string | null = null;
  for (;;) {
    const p = await store.listStreams(bucket, page(prefix, after, limit));
    pages.push(p.items.map((s) => s.name));
    expect(p.hasMore).toBe(p.nextCursor !== null);
    if (!p.hasMore) return pages;
    expect(p.nextCursor).toBe(p.items[p.items.length - 1]!.name);
    after = p.nextCursor;
  }
}

export function buckets(factory: EngineFactory): void {
  const t = (title: string, run: Parameters<typeof contract>[2], options?: Parameters<typeof contract>[3]) => contract(factory, title, run, options);

  describe("buckets §2.1–§2.3", () => {
    t("§2.1/§2.2 a bucket is created once, then exists; a stream's create makes its bucket exist too", async ({ engine }) => {
      const { store } = engine;
      expect(await store.hasBucket("bkt1")).toBe(false);
      expect(await store.getBucket("bkt1")).toBeUndefined();
      expect(await store.putBucket("bkt1")).toBe("created");
      expect(await store.putBucket("bkt1")).toBe("exists");
      expect(await store.getBucket("bkt1")).toEqual({ bucket: "bkt1", streams: 0, createdAtMs: T0 });
      await created(store, "bkt2/s");
      expect(await store.hasBucket("bkt2")).toBe(true);
      expect(await store.counts()).toEqual({ streams: 1, buckets: 2 });
    });

    t("§2.2 a bucket counts its live streams: expired and soft-deleted ones are left out", async ({ engine, clock }) => {
      const { store } = engine;
      await created(store, "bkt0/live");
      await created(store, "bkt0/short", { lifetime: { ttlSeconds: 1, expiresAtMs: null } });
      await created(store, "bkt0/src", { body: enc("x") });
      await created(store, "bkt0/fork", { fork: { sourceKey: "bkt0/src", offset: null, subOffset: null } });
      expect((await store.getBucket("bkt0"))?.streams).toBe(4);
      await store.delete("bkt0/src", null);
      clock.now += 1_000;
      expect((await store.getBucket("bkt0"))?.streams).toBe(2);
    });

    t("§2.3 a bucket is deleted only when it holds no live stream; expired streams are purged, not counted", async ({ engine, clock }) => {
      const { store } = engine;
      expect(await store.deleteBucket("bkt0")).toBe("missing");
      await created(store, "bkt0/s");
      await created(store, "bkt0/short", { lifetime: { ttlSeconds: 1, expiresAtMs: null } });
      expect(await store.deleteBucket("bkt0")).toBe("not_empty");
      await store.delete("bkt0/s", null);
      expect(await store.deleteBucket("bkt0")).toBe("not_empty");
      clock.now += 1_000;
      expect(await store.deleteBucket("bkt0")).toBe("deleted");
      expect(await store.hasBucket("bkt0")).toBe(false);
      expect(await store.get("bkt0/short")).toBeUndefined();
    });

    t("§2.3/§7.4 a soft-deleted source is no live stream: its bucket is empty once the source's forks live elsewhere", async ({ engine }) => {
      const { store } = engine;
      await created(store, "bkt0/src", { body: enc("x") });
      await created(store, "bkt1/fork", { fork: { sourceKey: "bkt0/src", offset: null, subOffset: null } });
      await store.delete("bkt0/src", null);
      expect((await store.getBucket("bkt0"))?.streams).toBe(0);
      expect(await store.deleteBucket("bkt0")).toBe("deleted");
      // The fork keeps what it inherited, and its delete still takes the source with it.
      expect(await messagesOf(store, "bkt1/fork")).toEqual(["x"]);
      expect(await store.delete("bkt1/fork", null)).toEqual({ kind: "deleted", soft: false });
      expect(await store.get("bkt0/src")).toBeUndefined();
      expect((await created(store, "bkt0/src")).tail).toBe(0);
    });
  });

  describe("listings §2.4", () => {
    t("§2.4 streams are listed bytewise by ID, filtered by prefix, a page at a time with an exclusive cursor", async ({ engine }) => {
      const { store } = engine;
      for (const name of ["b", "a-2", "a-10", "a-1", "B", "ab", "a-3", "é", "\uFFFD", "\u{1F600}", "z"]) await created(store, `list/${name}`);
      await created(store, "other/a-0");
      expect(await names(store, "list", "", 1000)).toEqual([["B", "a-1", "a-10", "a-2", "a-3", "ab", "b", "z", "é", "\uFFFD", "\u{1F600}"]]);
      expect(await names(store, "list", "a-", 2)).toEqual([["a-1", "a-10"], ["a-2", "a-3"]]);
      const first = await store.listStreams("list", page("a", null, 3));
      expect(first).toMatchObject({ total: 5, hasMore: true, nextCursor: "a-2" });
      const rest = await store.listStreams("list", page("a", "a-2", 3));
      expect(rest).toMatchObject({ total: 5, hasMore: false, nextCursor: null });
      expect(rest.items.map((s) => s.name)).toEqual(["a-3", "ab"]);
      expect((await store.listStreams("list", page("", "\u{1F600}", 10))).items).toEqual([]);
    });

    t("§2.4 a listing entry reports the stream's state, and expired and soft-deleted streams are left out", async ({ engine, clock }) => {
      const { store } = engine;
      const state = await created(store, "list/open", { body: enc("abc") });
      await created(store, "list/closed", { close: true });
      await created(store, "list/short", { lifetime: { ttlSeconds: 1, expiresAtMs: null } });
      await created(store, "list/src");
      await created(store, "list/zfork", { fork: { sourceKey: "list/src", offset: null, subOffset: null } });
      await store.delete("list/src", null);
      clock.now += 1_000;
      await store.append("list/open", appendReq(["de"]));
      const listed = await store.listStreams("list", page("", null, 2));
      expect(listed.total).toBe(3);
      expect(listed.items.map((s) => s.name)).toEqual(["closed", "open"]);
      expect(listed.items[1]).toMatchObject({ closed: false, tail: 5, incarnation: state.incarnation, contentType: "text/plain", lastWriteAtMs: clock.now });
      expect(listed.items[0]).toMatchObject({ closed: true });
      expect((await store.listStreams("list", page("", "open", 2))).items.map((s) => s.name)).toEqual(["zfork"]);
    });

    t("§2.4 buckets are listed in order a page at a time, each with its live stream count", async ({ engine, clock }) => {
      const { store } = engine;
      for (const b of ["lst-c", "lst-a", "lst-b"]) await store.putBucket(b);
      await created(store, "lst-b/one");
      await created(store, "lst-b/two");
      await created(store, "lst-b/short", { lifetime: { ttlSeconds: 1, expiresAtMs: null } });
      await created(store, "lst-b/src");
      await created(store, "lst-b/zfork", { fork: { sourceKey: "lst-b/src", offset: null, subOffset: null } });
      await store.delete("lst-b/src", null);
      await store.delete("lst-b/zfork", null);
      clock.now += 1_000;
      const first = await store.listBuckets(page("lst-", null, 2));
      expect(first).toMatchObject({ total: 3, hasMore: true, nextCursor: "lst-b" });
      expect(first.items).toEqual([{ bucket: "lst-a", streamCount: 0 }, { bucket: "lst-b", streamCount: 2 }]);
      expect(await store.listBuckets(page("lst-", "lst-b", 2))).toMatchObject({ items: [{ bucket: "lst-c", streamCount: 0 }], hasMore: false, nextCursor: null });
    });
  });

  describe("quotas", () => {
    t("quotas §7.1: an expired stream is absent, so it holds no place under --max-streams-per-bucket", async ({ engine, clock }) => {
      const { store } = engine;
      await created(store, "quota/live");
      await created(store, "quota/short", { lifetime: { ttlSeconds: 1, expiresAtMs: null } });
      expectError(await store.create("quota/next", createReq("quota/next")), "QUOTA_EXCEEDED");
      clock.now += 1_000;
      expect((await store.create("quota/next", createReq("quota/next"))).kind).toBe("created");
      expect(await store.get("quota/short")).toBeUndefined();
    }, { quotas: { maxBuckets: Infinity, maxStreamsPerBucket: 2 } });


    t("quotas: a bucket past --max-buckets is refused, by PUT of a bucket or of a stream in a new one, creating nothing", async ({ engine }) => {
      const { store } = engine;
      expect(await store.putBucket("quota1")).toBe("created");
      await created(store, "quota2/s");
      expectError(await store.putBucket("quota3"), "QUOTA_EXCEEDED");
      expectError(await store.create("quota3/s", createReq("quota3/s")), "QUOTA_EXCEEDED");
      expect(await store.hasBucket("quota3")).toBe(false);
      expect(await store.get("quota3/s")).toBeUndefined();
      expect((await store.create("quota1/s", createReq("quota1/s"))).kind).toBe("created");
      expect(await store.deleteBucket("quota1")).toBe("not_empty");
      await store.delete("quota1/s", null);
      expect(await store.deleteBucket("quota1")).toBe("deleted");
      expect(await store.putBucket("quota3")).toBe("created");
    }, { quotas: { maxBuckets: 2, maxStreamsPerBucket: Infinity } });

    t("quotas: of creates in new buckets sharing one transaction, only as many as --max-buckets allows succeed", async ({ engine }) => {
      const { store } = engine;
      await store.putBucket("quota1");
      const outcomes = await Promise.all([store.create("quota2/s", createReq("quota2/s")), store.putBucket("quota3"), store.create("quota4/s", createReq("quota4/s"))]);
      expect(outcomes.map((o) => (typeof o === "string" ? o : o.kind === "error" ? o.code : o.kind))).toEqual(["created", "QUOTA_EXCEEDED", "QUOTA_EXCEEDED"]);
      expect([await store.hasBucket("quota3"), await store.hasBucket("quota4")]).toEqual([false, false]);
    }, { quotas: { maxBuckets: 2, maxStreamsPerBucket: Infinity } });

    t("quotas: streams past --max-streams-per-bucket are refused, even when their creates share one transaction; a delete makes room", async ({ engine }) => {
      const { store } = engine;
      await created(store, "quota/a");
      const together = await Promise.all(["b", "c", "d"].map((n) => store.create(`quota/${n}`, createReq(`quota/${n}`))));
      expect(together.map((o) => (o.kind === "error" ? o.code : o.kind)).sort()).toEqual(["QUOTA_EXCEEDED", "QUOTA_EXCEEDED", "created"]);
      expect((await store.listStreams("quota", page("", null, 10))).total).toBe(2);
      // An existing stream's re-PUT is no new stream.
      expect((await store.create("quota/a", createReq("quota/a"))).kind).toBe("exists");
      await store.delete("quota/a", null);
      expect((await store.create("quota/e", createReq("quota/e"))).kind).toBe("created");
    }, { quotas: { maxBuckets: Infinity, maxStreamsPerBucket: 2 } });
  });
}
