// Crash and rollback (spec §1.9 "persisted atomically with data"; common standard 1): what a store
// acknowledged is there after a clean close and after a crash, each write whole or not at all,
// and a write whose transaction failed is not there. Only for engines whose data outlives the store.

import { describe, expect } from "bun:test";
import type { AppendDecision } from "../../protocol/append";
import type { Store } from "../store";
import type { EngineFactory } from "./engine";
import { appendAll, appendReq, contract, created, enc, fingerprint, messagesOf, producer, publish, retain, stateOf } from "./helpers";

const pad = (n: number) => String(n).padStart(4, "0");

/** A stream of every kind of state a write can leave. */
async function everything(store: Store): Promise<string[]> {
  await created(store, "crash/guards", { streamSeq: "0001", lifetime: { ttlSeconds: 3600, expiresAtMs: null }, attrs: JSON.stringify({ title: "g" }) });
  await store.append("crash/guards", appendReq(["a", "bc"], { producer: producer("p", 2, 0), streamSeq: "0002" }));
  await store.append("crash/guards", appendReq(["def"], { producer: producer("q", 0, 0) }));
  await publish(store, "crash/guards", 3, "snap");
  await retain(store, "crash/guards", 1);
  await created(store, "crash/closed", { body: enc("final"), close: true, producer: producer("c", 1, 0) });
  await created(store, "crash/src", { body: enc("inherited") });
  await created(store, "crash/mid", { fork: { sourceKey: "crash/src", offset: null, subOffset: null } });
  await created(store, "crash/leaf", { fork: { sourceKey: "crash/mid", offset: null, subOffset: null } });
  await appendAll(store, "crash/leaf", "own");
  await store.delete("crash/src", null);
  await store.delete("crash/mid", null);
  await created(store, "crash/gone");
  await store.delete("crash/gone", null);
  return ["crash/guards", "crash/closed", "crash/src", "crash/mid", "crash/leaf", "crash/gone"];
}

/** Not registered for an engine whose data does not outlive the store (SQLite in memory). */
export function crash(factory: EngineFactory): void {
  if (!factory.durable) return;
  const t = (title: string, run: Parameters<typeof contract>[2]) => contract(factory, title, run);

  describe("crash and rollback §1.9", () => {
    t("§1.9 a reopen finds exactly the committed state: bytes, guards, producers, closure, lifetime, attributes, snapshot, floor, forks and deletes", async ({ engine }) => {
      const keys = await everything(engine.store);
      const before = await Promise.all(keys.map((k) => fingerprint(engine.store, k)));
      const store = await engine.reopen();
      expect(await Promise.all(keys.map((k) => fingerprint(store, k)))).toEqual(before);
      expect(await store.counts()).toEqual({ streams: 3, buckets: 1 });
      expect(await store.getBucket("crash")).toMatchObject({ streams: 3 });
    });

    t("§1.9 a crash finds exactly the committed state too, before the store has written anything out on its own", async ({ engine }) => {
      const keys = await everything(engine.store);
      const before = await Promise.all(keys.map((k) => fingerprint(engine.store, k)));
      const store = await engine.crash();
      expect(await Promise.all(keys.map((k) => fingerprint(store, k)))).toEqual(before);
    });

    t("§1.9 closing without waiting for writes commits every one of them: each is acknowledged and found after the reopen", async ({ engine }) => {
      await created(engine.store, "crash/s");
      const writes: Promise<AppendDecision>[] = [];
      for (let i = 0; i < 40; i++) writes.push(engine.store.append("crash/s", appendReq([`m${pad(i)}`], { producer: producer("p", 0, i), streamSeq: pad(i) })));
      const reopening = engine.reopen();
      const outcomes = await Promise.all(writes);
      const store = await reopening;
      expect(outcomes.every((o) => o.kind === "accepted")).toBe(true);
      const state = await stateOf(store, "crash/s");
      expect(state).toMatchObject({ tail: 200, messageCount: 40, lastSeq: pad(39) });
      expect(await store.producers(state)).toMatchObject([["p", { epoch: 0, lastSeq: 39, lastNext: 200 }]]);
      expect((await messagesOf(store, "crash/s"))[39]).toBe(`m${pad(39)}`);
    });

    t("§1.9 a crash with writes in flight keeps every acknowledged one, and each write whole: bytes, Stream-Seq and producer agree", async ({ engine }) => {
      const keys = ["crash/a", "crash/b", "crash/c"];
      for (const key of keys) await created(engine.store, key);
      const acked = new Map(keys.map((k) => [k, 0]));
      const writes: Promise<unknown>[] = [];
      for (let i = 0; i < 30; i++) {
        for (const key of keys) {
          const write = engine.store.append(key, appendReq([`m${pad(i)}`, "!"], { producer: producer("p", 0, i), streamSeq: pad(i) }));
          writes.push(write.then((d) => d.kind === "accepted" && acked.set(key, Math.max(acked.get(key)!, i + 1))));
        }
        // Some writes are acknowledged before the crash, others are still in flight.
        if (i === 10) await writes[writes.length - 1];
        if (i % 3 === 0) await new Promise((r) => setImmediate(r));
      }
      const ackedAtCrash = new Map(acked);
      const store = await engine.crash();
      await Promise.allSettled(writes);
      for (const key of keys) {
        const state = await stateOf(store, key);
        const found = state.messageCount / 2;
        expect(Number.isInteger(found)).toBe(true);
        expect(found).toBeGreaterThanOrEqual(ackedAtCrash.get(key)!);
        expect(state.tail).toBe(found * 6);
        expect(state.lastSeq).toBe(found === 0 ? null : pad(found - 1));
        const messages = await messagesOf(store, key);
        expect(messages).toEqual(Array.from({ length: found }, (_, i) => [`m${pad(i)}`, "!"]).flat());
        if (found > 0) expect((await store.producers(state))[0]).toMatchObject(["p", { lastSeq: found - 1, lastNext: found * 6 }]);
        // The stream goes on where the crash left it.
        expect((await store.append(key, appendReq(["next"], { producer: producer("p", 0, found), streamSeq: pad(found) }))).kind).toBe("accepted");
      }
    });

    t("§5.1 a write whose transaction failed is not there after a reopen, and its stream takes the same write again", async ({ engine }) => {
      await created(engine.store, "crash/s");
      await engine.store.append("crash/s", appendReq(["kept"], { producer: producer("p", 0, 0), streamSeq: "1" }));
      const before = await fingerprint(engine.store, "crash/s");
      const fault = await engine.failWrites("crash/s");
      const failed = await engine.store.append("crash/s", appendReq(["lost"], { producer: producer("p", 0, 1), streamSeq: "2", close: true })).then(() => false, () => true);
      expect(failed).toBe(true);
      await fault.heal();
      const store = await engine.reopen();
      expect(await fingerprint(store, "crash/s")).toBe(before);
      expect((await store.append("crash/s", appendReq(["again"], { producer: producer("p", 0, 1), streamSeq: "2" }))).kind).toBe("accepted");
    });

    t("§1.8 incarnation tokens keep increasing after a reopen and after a crash", async ({ engine }) => {
      const tokens = [BigInt((await created(engine.store, "crash/a")).incarnation)];
      await engine.reopen();
      tokens.push(BigInt((await created(engine.store, "crash/b")).incarnation));
      await engine.crash();
      tokens.push(BigInt((await created(engine.store, "crash/c")).incarnation));
      await engine.store.delete("crash/a", null);
      tokens.push(BigInt((await created(engine.store, "crash/a")).incarnation));
      for (let i = 1; i < tokens.length; i++) expect(tokens[i]! > tokens[i - 1]!).toBe(true);
    });

    t("§7.1 a stream's TTL runs on after a reopen from its last write, and it expires by the same clock", async ({ engine, clock }) => {
      await created(engine.store, "crash/s", { lifetime: { ttlSeconds: 100, expiresAtMs: null } });
      clock.now += 50_000;
      await appendAll(engine.store, "crash/s", "renews");
      const store = await engine.reopen();
      clock.now += 99_999;
      expect(await store.get("crash/s")).toBeDefined();
      clock.now += 1;
      expect(await store.get("crash/s")).toBeUndefined();
    });
  });
}
