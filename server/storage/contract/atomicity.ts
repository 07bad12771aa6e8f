// All or nothing (spec §5.1 Phase B; common standard 1): a refused write commits nothing, TTL
// renewal included; a write whose transaction fails inside the engine commits nothing; and writes
// that share one transaction (group commit) keep their own outcomes.

import { describe, expect } from "bun:test";
import type { AppendDecision } from "../../protocol/append";
import type { EngineFactory } from "./engine";
import { appendAll, appendReq, contract, createReq, created, enc, expectError, fingerprint, messagesOf, producer, publish, retain, stateOf } from "./helpers";

const TTL = { ttlSeconds: 600, expiresAtMs: null };

export function atomicity(factory: EngineFactory): void {
  const t = (title: string, run: Parameters<typeof contract>[2], options?: Parameters<typeof contract>[3]) => contract(factory, title, run, options);

  describe("all or nothing §5.1", () => {
    t("§5.1 each refused append leaves bytes, Stream-Seq, producers, closure and the TTL touch unchanged", async ({ engine, clock }) => {
      const { store } = engine;
      await created(store, "atomic/s", { lifetime: TTL, streamSeq: "5" });
      await store.append("atomic/s", appendReq(["a"], { producer: producer("p", 3, 0) }));
      await store.append("atomic/s", appendReq(["b"], { producer: producer("q", 0, 0) }));
      await created(store, "atomic/closed", { lifetime: TTL, close: true });
      clock.now += 60_000;
      const refusals: [string, Parameters<typeof store.append>[1], string][] = [
        ["atomic/s", appendReq(["x"], { streamSeq: "5" }), "STREAM_SEQ_CONFLICT"],
        ["atomic/s", appendReq(["x"], { producer: producer("p", 3, 2), streamSeq: "6" }), "PRODUCER_SEQ_CONFLICT"],
        ["atomic/s", appendReq(["x"], { producer: producer("p", 2, 1), streamSeq: "6" }), "PRODUCER_EPOCH_STALE"],
        ["atomic/s", appendReq(["x"], { producer: producer("p", 4, 1) }), "INVALID_PRODUCER"],
        ["atomic/s", appendReq(["x"], { producer: producer("r", 0, 0) }), "PRODUCER_LIMIT"],
        ["atomic/s", appendReq(["x"], { contentType: "application/json", streamSeq: "6" }), "CONTENT_TYPE_MISMATCH"],
        ["atomic/closed", appendReq(["x"], { close: true }), "STREAM_CLOSED"],
        ["atomic/closed", appendReq(["x"], { producer: producer("p", 0, 0) }), "STREAM_CLOSED"],
      ];
      for (const [key, request, code] of refusals) {
        const before = await fingerprint(store, key);
        expectError(await store.append(key, request), code as "STREAM_CLOSED");
        expect(await fingerprint(store, key)).toBe(before);
      }
      expect((await stateOf(store, "atomic/s")).touchedAtMs).toBe(clock.now - 60_000);
    }, { producerLimits: { idleTtlMs: 7 * 24 * 3_600_000, maxPerStream: 2 } });

    t("§2.10 a batch whose every frame is refused leaves the stream unchanged, its TTL touch included", async ({ engine, clock }) => {
      const { store } = engine;
      await created(store, "atomic/closed", { lifetime: TTL, body: enc("final"), close: true });
      await created(store, "atomic/json", { lifetime: TTL, contentType: "application/json" });
      clock.now += 60_000;
      for (const key of ["atomic/closed", "atomic/json"]) {
        const before = await fingerprint(store, key);
        const outcome = await store.appendBatch(key, { contentType: "text/plain", frames: [[enc("x")], [enc("y")]], incarnation: null });
        if (outcome.kind !== "batch") throw new Error(`batch: ${outcome.code}`);
        expect(outcome.acks.map((a) => a.ok)).toEqual([false, false]);
        expect(await fingerprint(store, key)).toBe(before);
      }
    });

    t("§5.1 writes to different streams sharing one group commit are independent: a refused one does not roll back the others", async ({ engine }) => {
      const { store } = engine;
      for (const name of ["a", "b", "c"]) await created(store, `atomic/${name}`, { streamSeq: "5" });
      const before = await fingerprint(store, "atomic/b");
      // Submitted in one turn of the event loop: one transaction where the engine groups commits.
      const outcomes = await Promise.all([
        store.append("atomic/a", appendReq(["one"], { streamSeq: "6" })),
        store.append("atomic/b", appendReq(["two"], { streamSeq: "5" })),
        store.append("atomic/c", appendReq(["three"], { streamSeq: "6" })),
      ]);
      expect(outcomes.map((o) => (o.kind === "error" ? o.code : o.kind))).toEqual(["accepted", "STREAM_SEQ_CONFLICT", "accepted"]);
      expect(await fingerprint(store, "atomic/b")).toBe(before);
      expect(await messagesOf(store, "atomic/a")).toEqual(["one"]);
      expect(await messagesOf(store, "atomic/c")).toEqual(["three"]);
      expect((await stateOf(store, "atomic/c")).lastSeq).toBe("6");
    });

    t("§5.1 a write whose transaction fails commits nothing, uses up no Producer-Seq or Stream-Seq, and its group-commit neighbours still commit", async ({ engine }) => {
      const { store } = engine;
      for (const name of ["a", "b", "c"]) await created(store, `atomic/${name}`);
      await store.append("atomic/b", appendReq(["kept"], { producer: producer("p", 0, 0), streamSeq: "1" }));
      const before = await fingerprint(store, "atomic/b");
      const fault = await engine.failWrites("atomic/b");
      const outcomes = await Promise.allSettled([
        store.append("atomic/a", appendReq(["one"], { producer: producer("p", 0, 0) })),
        store.append("atomic/b", appendReq(["lost"], { producer: producer("p", 0, 1), streamSeq: "2" })),
        store.append("atomic/c", appendReq(["three"])),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      expect(outcomes.map((o) => o.status === "fulfilled" && (o.value as AppendDecision).kind)).toEqual(["accepted", false, "accepted"]);
      expect(await fingerprint(store, "atomic/b")).toBe(before);
      expect(await messagesOf(store, "atomic/a")).toEqual(["one"]);
      expect(await messagesOf(store, "atomic/c")).toEqual(["three"]);
      await fault.heal();
      // The same write again is new to the stream: neither a duplicate nor a Stream-Seq conflict.
      expect((await store.append("atomic/b", appendReq(["again"], { producer: producer("p", 0, 1), streamSeq: "2" }))).kind).toBe("accepted");
      expect(await messagesOf(store, "atomic/b")).toEqual(["kept", "again"]);
    });

    t("§5.1 a close, batch, attributes change, publish, retention or delete whose transaction fails leaves the stream as it was", async ({ engine }) => {
      const { store } = engine;
      await created(store, "atomic/s", { attrs: JSON.stringify({ title: "t" }) });
      await store.append("atomic/s", appendReq(["abc", "def"]));
      expect((await publish(store, "atomic/s", 3, "snap")).kind).toBe("published");
      const before = await fingerprint(store, "atomic/s");
      const fault = await engine.failWrites("atomic/s");
      const attempts = [
        () => store.append("atomic/s", appendReq([], { close: true })),
        () => store.append("atomic/s", appendReq(["x"], { close: true })),
        () => store.appendBatch("atomic/s", { contentType: "text/plain", frames: [[enc("x")], [enc("y")]], incarnation: null }),
        () => store.putAttrs("atomic/s", null, JSON.stringify({ title: "other" })),
        () => store.putAttrs("atomic/s", null, null),
        () => publish(store, "atomic/s", 6, "newer"),
        () => retain(store, "atomic/s", 3),
        () => store.delete("atomic/s", null),
      ];
      for (const attempt of attempts) {
        expect(await attempt().then(() => "committed", () => "failed")).toBe("failed");
        expect(await fingerprint(store, "atomic/s")).toBe(before);
      }
      await fault.heal();
      expect((await store.append("atomic/s", appendReq([], { close: true }))).kind).toBe("accepted");
    });

    t("§5.1 a delete or fork whose transaction fails leaves every other stream's acknowledged writes readable", async ({ engine }) => {
      const { store } = engine;
      await created(store, "atomic/x");
      await created(store, "atomic/y");
      await appendAll(store, "atomic/y", "one", "two");
      await appendAll(store, "atomic/x", "x");
      const fault = await engine.failWrites("atomic/x");
      expect(await store.delete("atomic/x", null).then(() => "committed", () => "failed")).toBe("failed");
      await appendAll(store, "atomic/y", "three");
      expect(await store.create("atomic/x2", createReq("atomic/x2", { fork: { sourceKey: "atomic/x", offset: null, subOffset: null } })).then(() => "committed", () => "failed")).toBe("failed");
      await fault.heal();
      await appendAll(store, "atomic/y", "four");
      expect(await messagesOf(store, "atomic/y")).toEqual(["one", "two", "three", "four"]);
      expect(await messagesOf(store, "atomic/x")).toEqual(["x"]);
      expect(await store.get("atomic/x2")).toBeUndefined();
      expect((await created(store, "atomic/x3", { fork: { sourceKey: "atomic/y", offset: null, subOffset: null } })).tail).toBe(15);
      expect(await messagesOf(store, "atomic/x3")).toEqual(["one", "two", "three", "four"]);
    });

    t("§2.5 a create whose transaction fails leaves no stream and no trace of its body, Stream-Seq or producer", async ({ engine }) => {
      const { store } = engine;
      const fault = await engine.failWrites("atomic/new");
      const request = createReq("atomic/new", { body: enc("hello"), streamSeq: "3", producer: producer("p", 1, 0) });
      expect(await store.create("atomic/new", request).then(() => "committed", () => "failed")).toBe("failed");
      expect(await store.get("atomic/new")).toBeUndefined();
      await fault.heal();
      const state = await created(store, "atomic/new", { ...request });
      expect(state).toMatchObject({ tail: 5, lastSeq: "3" });
      expect(await messagesOf(store, "atomic/new")).toEqual(["hello"]);
      expect((await store.append("atomic/new", appendReq(["x"], { producer: producer("p", 1, 1) }))).kind).toBe("accepted");
    });
  });
}
