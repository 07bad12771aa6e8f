// Forks (spec §7.4): a fork inherits its source's bytes below the fork offset, shares its offsets,
// and never sees what either side appends later. A source with forks is soft-deleted, and the
// last fork of a soft-deleted source takes it with it, up the chain.

import { describe, expect } from "bun:test";
import type { ForkRequest } from "../../protocol/create";
import type { Store } from "../store";
import type { EngineFactory } from "./engine";
import { appendAll, appendReq, bytesOf, contract, createReq, created, enc, expectError, fingerprint, jsonAppend, messagesOf, producer, publish, retain, stateOf, valuesOf } from "./helpers";

const fork = (sourceKey: string, offset: number | null = null, subOffset: number | null = null): { fork: ForkRequest } => ({ fork: { sourceKey, offset, subOffset } });

/** A source with the appends "ab", "cde" and "f" (boundaries 0, 2, 5, 6). */
async function source(store: Store, key: string, overrides = {}) {
  await created(store, key, overrides);
  await appendAll(store, key, "ab", "cde", "f");
}

export function forks(factory: EngineFactory): void {
  const t = (title: string, run: Parameters<typeof contract>[2]) => contract(factory, title, run);

  describe("forks §7.4", () => {
    t("§7.4 a fork reads its inherited bytes then its own across the fork point; later appends on either side stay on their side", async ({ engine }) => {
      const { store } = engine;
      await source(store, "forks/src");
      const state = await created(store, "forks/fork", fork("forks/src", 2));
      expect(state).toMatchObject({ tail: 2, contentType: "text/plain", fork: { sourceKey: "forks/src", offset: 2, subOffset: 0 } });
      await appendAll(store, "forks/fork", "XY");
      await appendAll(store, "forks/src", "g");
      expect(await messagesOf(store, "forks/fork")).toEqual(["ab", "XY"]);
      expect(await bytesOf(store, "forks/fork", 0, 3)).toBe("abXY");
      expect(await bytesOf(store, "forks/fork", 1, 2)).toBe("bXY");
      expect(await messagesOf(store, "forks/src")).toEqual(["ab", "cde", "f", "g"]);
      // Offsets are shared with the source: the fork's own bytes start at the fork offset.
      expect(await messagesOf(store, "forks/fork", 2)).toEqual(["XY"]);
    });

    t("§7.4 without an offset a fork takes the source's tail; an offset beyond it or between appends is refused and leaks nothing", async ({ engine }) => {
      const { store } = engine;
      await source(store, "forks/src");
      expect((await created(store, "forks/all", fork("forks/src"))).tail).toBe(6);
      const before = await fingerprint(store, "forks/src");
      expectError(await store.create("forks/x", createReq("forks/x", fork("forks/src", 7))), "INVALID_FORK");
      expectError(await store.create("forks/x", createReq("forks/x", fork("forks/src", 3))), "INVALID_FORK");
      expectError(await store.create("forks/x", createReq("forks/x", fork("forks/src", 2, 4))), "INVALID_FORK");
      expectError(await store.create("forks/x", createReq("forks/x", fork("forks/none"))), "STREAM_NOT_FOUND");
      expectError(await store.create("forks/x", createReq("forks/x", { ...fork("forks/src"), contentType: "application/json" })), "CONTENT_TYPE_MISMATCH");
      expect(await store.get("forks/x")).toBeUndefined();
      expect(await fingerprint(store, "forks/src")).toBe(before);
      // Refused forks hold no reference: once the one real fork goes, the source is deleted for good.
      expect(await store.delete("forks/all", null)).toEqual({ kind: "deleted", soft: false });
      expect(await store.delete("forks/src", null)).toEqual({ kind: "deleted", soft: false });
    });

    t("§7.4 a sub-offset inherits part of the append at the fork offset: bytes on a byte stream, messages on a JSON stream", async ({ engine }) => {
      const { store } = engine;
      await source(store, "forks/src");
      const bytes = await created(store, "forks/bytes", fork("forks/src", 2, 2));
      expect(bytes.tail).toBe(4);
      expect(await bytesOf(store, "forks/bytes", 0)).toBe("abcd");
      expect((await created(store, "forks/whole", fork("forks/src", 2, 3))).tail).toBe(5);
      await created(store, "forks/json", { contentType: "application/json" });
      await store.append("forks/json", jsonAppend("[1]"));
      const second = (await stateOf(store, "forks/json")).tail;
      await store.append("forks/json", jsonAppend("[2, 3, 4]"));
      const sub = await created(store, "forks/jfork", { ...fork("forks/json", second, 2), contentType: null, body: enc("[5]") });
      expect(sub.messageCount).toBe(4);
      expect(await valuesOf(store, "forks/jfork")).toEqual([1, 2, 3, 5]);
      expect((await created(store, "forks/jall", { ...fork("forks/json", second, 3), contentType: null })).tail).toBe((await stateOf(store, "forks/json")).tail);
      expectError(await store.create("forks/x", createReq("forks/x", { ...fork("forks/json", second, 4), contentType: null })), "INVALID_FORK");
    });

    t("§7.4 a fork inherits no producers, no Stream-Seq and no closure; it takes the source's type and TTL unless given its own", async ({ engine }) => {
      const { store } = engine;
      await created(store, "forks/src", { streamSeq: "9", lifetime: { ttlSeconds: 300, expiresAtMs: null } });
      await store.append("forks/src", appendReq(["a"], { producer: producer("p", 0, 0), close: true }));
      const state = await created(store, "forks/fork", { ...fork("forks/src"), contentType: null });
      expect(state).toMatchObject({ lastSeq: null, closed: false, ttlSeconds: 300, contentType: "text/plain" });
      expect(await store.producers(state)).toEqual([]);
      expect((await store.append("forks/fork", appendReq(["b"], { producer: producer("p", 0, 5) }))).kind).toBe("error");
      expect((await store.append("forks/fork", appendReq(["b"], { streamSeq: "0" }))).kind).toBe("accepted");
      const own = await created(store, "forks/own", { ...fork("forks/src"), lifetime: { ttlSeconds: null, expiresAtMs: 2_000_000_000_000 } });
      expect(own).toMatchObject({ ttlSeconds: null, expiresAtMs: 2_000_000_000_000 });
    });

    t("§7.4 a fork decided in the same transaction as the source's create and appends inherits exactly what was committed before it", async ({ engine }) => {
      const { store } = engine;
      // Submitted in one turn: where the engine groups commits, one transaction decides them in order.
      const outcomes = await Promise.all([
        store.create("forks/src", createReq("forks/src", { body: enc("ab") })),
        store.append("forks/src", appendReq(["cde"])),
        store.create("forks/at-tail", createReq("forks/at-tail", fork("forks/src"))),
        store.create("forks/sub", createReq("forks/sub", fork("forks/src", 2, 1))),
        store.append("forks/src", appendReq(["f"])),
        store.create("forks/later", createReq("forks/later", fork("forks/src", 5))),
      ]);
      expect(outcomes.map((o) => o.kind)).toEqual(["created", "accepted", "created", "created", "accepted", "created"]);
      expect(await messagesOf(store, "forks/at-tail")).toEqual(["ab", "cde"]);
      expect(await bytesOf(store, "forks/sub", 0)).toBe("abc");
      expect(await messagesOf(store, "forks/later")).toEqual(["ab", "cde"]);
      expect(await messagesOf(store, "forks/src")).toEqual(["ab", "cde", "f"]);
    });

    t("§7.1/§7.4 an expired source cannot be forked: it is absent", async ({ engine, clock }) => {
      const { store } = engine;
      await created(store, "forks/src", { body: enc("x"), lifetime: { ttlSeconds: 1, expiresAtMs: null } });
      clock.now += 1_000;
      expectError(await store.create("forks/f", createReq("forks/f", fork("forks/src"))), "STREAM_NOT_FOUND");
      expect(await store.get("forks/f")).toBeUndefined();
    });

    t("§7.4 a re-PUT of the same fork is idempotent; another offset or source is a 409", async ({ engine }) => {
      const { store } = engine;
      await source(store, "forks/src");
      await source(store, "forks/other");
      const first = await created(store, "forks/fork", fork("forks/src", 2));
      expect(await store.create("forks/fork", createReq("forks/fork", fork("forks/src", 2)))).toMatchObject({ kind: "exists", state: { incarnation: first.incarnation } });
      expect((await store.create("forks/fork", createReq("forks/fork", fork("forks/src")))).kind).toBe("exists");
      expectError(await store.create("forks/fork", createReq("forks/fork", fork("forks/src", 5))), "STREAM_ALREADY_EXISTS_CONFLICT");
      expectError(await store.create("forks/fork", createReq("forks/fork", fork("forks/other", 2))), "STREAM_ALREADY_EXISTS_CONFLICT");
    });

    t("§7.4 deleting a source with forks soft-deletes it: its path refuses everything, and the forks keep reading what they inherited", async ({ engine }) => {
      const { store } = engine;
      await source(store, "forks/src");
      await created(store, "forks/fork", fork("forks/src", 5));
      expect(await store.delete("forks/src", null)).toEqual({ kind: "deleted", soft: true });
      expect(await stateOf(store, "forks/src")).toMatchObject({ softDeleted: true });
      expectError(await store.append("forks/src", appendReq(["x"])), "STREAM_SOFT_DELETED");
      expectError(await store.delete("forks/src", null), "STREAM_SOFT_DELETED");
      expectError(await store.create("forks/src", createReq("forks/src")), "STREAM_SOFT_DELETED");
      expectError(await store.putAttrs("forks/src", null, null), "STREAM_SOFT_DELETED");
      expectError(await store.appendBatch("forks/src", { contentType: "text/plain", frames: [[enc("x")]], incarnation: null }), "STREAM_SOFT_DELETED");
      expectError(await store.create("forks/again", createReq("forks/again", fork("forks/src"))), "STREAM_SOFT_DELETED");
      expect(await messagesOf(store, "forks/fork")).toEqual(["ab", "cde"]);
      await appendAll(store, "forks/fork", "own");
      expect(await messagesOf(store, "forks/fork")).toEqual(["ab", "cde", "own"]);
    });

    t("§7.4 the last fork of a soft-deleted source takes it with it, up the whole chain, and frees its path", async ({ engine }) => {
      const { store } = engine;
      await source(store, "forks/a");
      await created(store, "forks/b", fork("forks/a"));
      await created(store, "forks/c", fork("forks/b"));
      await created(store, "forks/d", fork("forks/b"));
      expect(await store.delete("forks/a", null)).toEqual({ kind: "deleted", soft: true });
      expect(await store.delete("forks/b", null)).toEqual({ kind: "deleted", soft: true });
      expect(await store.delete("forks/c", null)).toEqual({ kind: "deleted", soft: false });
      // d still holds b, and b holds a.
      expect((await stateOf(store, "forks/b")).softDeleted).toBe(true);
      expect((await stateOf(store, "forks/a")).softDeleted).toBe(true);
      expect(await messagesOf(store, "forks/d")).toEqual(["ab", "cde", "f"]);
      expect(await store.delete("forks/d", null)).toEqual({ kind: "deleted", soft: false });
      expect(await store.get("forks/b")).toBeUndefined();
      expect(await store.get("forks/a")).toBeUndefined();
      expect((await created(store, "forks/a")).tail).toBe(0);
    });

    t("§7.4/§3.4 a fork cannot start below its source's retained floor, and keeps the snapshot that covers what it inherits", async ({ engine }) => {
      const { store } = engine;
      await source(store, "forks/src");
      expect((await publish(store, "forks/src", 5, "snap")).kind).toBe("published");
      expect((await retain(store, "forks/src", 2)).kind).toBe("advanced");
      expectError(await store.create("forks/x", createReq("forks/x", fork("forks/src", 0))), "STREAM_GONE");
      const state = await created(store, "forks/fork", fork("forks/src", 5));
      expect(state.retained).toBe(2);
      expect(state.snapshot).toMatchObject({ offset: 5 });
      expect(await messagesOf(store, "forks/fork")).toEqual(["cde"]);
    });
  });
}
