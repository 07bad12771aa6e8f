// TTL and Expires-At (spec §7.1): a sliding TTL renewed by reads and writes, an absolute instant
// never renewed, and an expired stream that is absent to everything (a fork source with forks is
// soft-deleted instead). Attributes (spec §2.11–§2.12) sit here too: they change no offset and
// renew no TTL.

import { describe, expect } from "bun:test";
import type { EngineFactory } from "./engine";
import { appendReq, contract, createReq, created, enc, expectError, fingerprint, messagesOf, publish, stateOf, T0 } from "./helpers";

const ttl = (seconds: number) => ({ lifetime: { ttlSeconds: seconds, expiresAtMs: null } });

export function lifetime(factory: EngineFactory): void {
  const t = (title: string, run: Parameters<typeof contract>[2]) => contract(factory, title, run);

  describe("TTL and expiry §7.1", () => {
    t("§7.1 a stream expires once now reaches its last touch plus the TTL, and is then absent to reads and writes", async ({ engine, clock }) => {
      const { store } = engine;
      await created(store, "lifetime/s", { ...ttl(10), body: enc("x") });
      clock.now = T0 + 9_999;
      expect(await store.get("lifetime/s")).toBeDefined();
      clock.now = T0 + 10_000;
      expect(await store.get("lifetime/s")).toBeUndefined();
      expectError(await store.append("lifetime/s", appendReq(["y"])), "STREAM_NOT_FOUND");
      expectError(await store.delete("lifetime/s", null), "STREAM_NOT_FOUND");
      expectError(await store.putAttrs("lifetime/s", null, null), "STREAM_NOT_FOUND");
      expectError(await store.appendBatch("lifetime/s", { contentType: "text/plain", frames: [[enc("z")]], incarnation: null }), "STREAM_NOT_FOUND");
    });

    t("§7.1 appends and read renewals slide the TTL; an attributes change does not", async ({ engine, clock }) => {
      const { store } = engine;
      await created(store, "lifetime/s", ttl(10));
      clock.now = T0 + 8_000;
      await store.append("lifetime/s", appendReq(["a"]));
      clock.now = T0 + 16_000;
      expect(await store.get("lifetime/s")).toBeDefined();
      await store.renewTtl("lifetime/s");
      clock.now = T0 + 25_000;
      await store.putAttrs("lifetime/s", null, JSON.stringify({ title: "t" }));
      expect((await stateOf(store, "lifetime/s")).touchedAtMs).toBe(T0 + 16_000);
      clock.now = T0 + 26_000;
      expect(await store.get("lifetime/s")).toBeUndefined();
    });

    t("§7.1 looking a stream up (HEAD, attributes) renews nothing: only renewTtl and writes do", async ({ engine, clock }) => {
      const { store } = engine;
      await created(store, "lifetime/s", ttl(10));
      for (let i = 1; i <= 9; i++) {
        clock.now = T0 + i * 1_000;
        await store.get("lifetime/s");
        await store.attrs(await stateOf(store, "lifetime/s"));
        await store.producers(await stateOf(store, "lifetime/s"));
      }
      clock.now = T0 + 10_000;
      expect(await store.get("lifetime/s")).toBeUndefined();
    });

    t("§7.1 publishing a snapshot and advancing retention renew no TTL", async ({ engine, clock }) => {
      const { store } = engine;
      await created(store, "lifetime/s", { ...ttl(10), body: enc("abc") });
      clock.now = T0 + 5_000;
      expect((await publish(store, "lifetime/s", 3, "snap")).kind).toBe("published");
      expect((await store.advanceRetention("lifetime/s", { kind: "offset", offset: 3 }, null)).kind).toBe("advanced");
      expect((await stateOf(store, "lifetime/s")).touchedAtMs).toBe(T0);
      clock.now = T0 + 10_000;
      expect(await store.get("lifetime/s")).toBeUndefined();
    });

    t("§7.1 Expires-At is absolute: neither appends nor read renewals move it", async ({ engine, clock }) => {
      const { store } = engine;
      await created(store, "lifetime/s", { lifetime: { ttlSeconds: null, expiresAtMs: T0 + 10_000 } });
      clock.now = T0 + 9_000;
      await store.append("lifetime/s", appendReq(["a"]));
      await store.renewTtl("lifetime/s");
      clock.now = T0 + 10_000;
      expect(await store.get("lifetime/s")).toBeUndefined();
    });

    t("§7.1 an expired stream reads as absent for a PUT: it creates a new incarnation without the old content", async ({ engine, clock }) => {
      const { store } = engine;
      const first = await created(store, "lifetime/s", { ...ttl(1), body: enc("old"), streamSeq: "5" });
      clock.now += 1_000;
      const second = await created(store, "lifetime/s", { contentType: "application/json" });
      expect(second.incarnation).not.toBe(first.incarnation);
      expect(second).toMatchObject({ tail: 0, lastSeq: null, ttlSeconds: null });
      expect(await messagesOf(store, "lifetime/s")).toEqual([]);
    });

    t("§7.1 Stream-TTL 0 and an Expires-At already past are accepted, and the stream is expired from its first access", async ({ engine }) => {
      const { store } = engine;
      expect((await store.create("lifetime/zero", createReq("lifetime/zero", ttl(0)))).kind).toBe("created");
      expect(await store.get("lifetime/zero")).toBeUndefined();
      expect((await store.create("lifetime/past", createReq("lifetime/past", { lifetime: { ttlSeconds: null, expiresAtMs: T0 - 1 } }))).kind).toBe("created");
      expectError(await store.append("lifetime/past", appendReq(["x"])), "STREAM_NOT_FOUND");
    });

    t("§7.1/§7.4 an expired source with live forks is soft-deleted, and its forks keep their bytes", async ({ engine, clock }) => {
      const { store } = engine;
      await created(store, "lifetime/src", { ...ttl(10), body: enc("inherited") });
      await created(store, "lifetime/fork", { fork: { sourceKey: "lifetime/src", offset: null, subOffset: null }, ...ttl(3600) });
      clock.now += 10_000;
      expectError(await store.append("lifetime/src", appendReq(["x"])), "STREAM_SOFT_DELETED");
      expect((await stateOf(store, "lifetime/src")).softDeleted).toBe(true);
      expect(await messagesOf(store, "lifetime/fork")).toEqual(["inherited"]);
      expect(await store.delete("lifetime/fork", null)).toEqual({ kind: "deleted", soft: false });
      expect(await store.get("lifetime/src")).toBeUndefined();
    });
  });

  describe("attributes §2.11–§2.12", () => {
    t("§2.12 attributes are replaced whole, cleared by null, and an equal PUT is unchanged; no offset or guard moves", async ({ engine }) => {
      const { store } = engine;
      await created(store, "lifetime/s", { body: enc("abc"), streamSeq: "1" });
      const state = await stateOf(store, "lifetime/s");
      const one = JSON.stringify({ title: "one" });
      expect(await store.putAttrs("lifetime/s", state.incarnation, one)).toMatchObject({ kind: "replaced" });
      expect(await store.attrs(await stateOf(store, "lifetime/s"))).toBe(one);
      const before = await fingerprint(store, "lifetime/s");
      expect((await store.putAttrs("lifetime/s", null, one)).kind).toBe("unchanged");
      expect(await fingerprint(store, "lifetime/s")).toBe(before);
      const two = JSON.stringify({ metadata: { k: "v" } });
      await store.putAttrs("lifetime/s", null, two);
      expect(await store.attrs(await stateOf(store, "lifetime/s"))).toBe(two);
      expect(await stateOf(store, "lifetime/s")).toMatchObject({ tail: 3, lastSeq: "1", incarnation: state.incarnation });
      expect((await store.putAttrs("lifetime/s", null, null)).kind).toBe("replaced");
      expect(await store.attrs(await stateOf(store, "lifetime/s"))).toBeNull();
      expect((await store.putAttrs("lifetime/s", null, null)).kind).toBe("unchanged");
    });

    t("§2.12 attributes may still change after close", async ({ engine }) => {
      const { store } = engine;
      await created(store, "lifetime/s", { close: true });
      expect((await store.putAttrs("lifetime/s", null, JSON.stringify({ title: "closed" }))).kind).toBe("replaced");
      expect(await stateOf(store, "lifetime/s")).toMatchObject({ closed: true });
    });

    t("§2.12 a re-PUT compares the attributes as they are now, after a change", async ({ engine }) => {
      const { store } = engine;
      const first = JSON.stringify({ title: "first" });
      await created(store, "lifetime/s", { attrs: first });
      const next = JSON.stringify({ title: "next" });
      await store.putAttrs("lifetime/s", null, next);
      expect((await store.create("lifetime/s", createReq("lifetime/s", { attrs: next }))).kind).toBe("exists");
      expectError(await store.create("lifetime/s", createReq("lifetime/s", { attrs: first })), "STREAM_ALREADY_EXISTS_CONFLICT");
    });
  });
}
