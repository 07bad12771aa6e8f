// Snapshots (spec §2.13–§2.16, §7.3), retention (spec §2.17, §7.2) and append-batch (spec §2.10).
// The checks themselves are decided in protocol/; the store must apply them against the state it
// commits with, keep one snapshot per stream, and never let the floor pass it.

import { describe, expect } from "bun:test";
import { planReadStart } from "../../protocol/read";
import type { EngineFactory } from "./engine";
import { appendAll, appendReq, contract, created, digestOf, enc, expectError, fingerprint, jsonAppend, messagesOf, producer, publish, retain, snapshotBytes, stateOf, valuesOf } from "./helpers";

/** Appends "ab", "cde", "f": boundaries at 0, 2, 5 and the tail 6. */
const SOURCE = ["ab", "cde", "f"];

export function resources(factory: EngineFactory): void {
  const t = (title: string, run: Parameters<typeof contract>[2]) => contract(factory, title, run);

  describe("snapshots §2.13–§2.16", () => {
    t("§2.13 a publish at a committed boundary or the tail becomes the visible snapshot, bytes and digest; it never moves the floor", async ({ engine }) => {
      const { store } = engine;
      await created(store, "snapshots/s");
      await appendAll(store, "snapshots/s", ...SOURCE);
      const outcome = await publish(store, "snapshots/s", 2, "state@2", { contentType: "application/json" });
      const digest = await digestOf("application/json", "state@2");
      expect(outcome).toMatchObject({ kind: "published", snapshot: { offset: 2, digest, contentType: "application/json", size: 7 } });
      expect(await stateOf(store, "snapshots/s")).toMatchObject({ retained: 0, snapshot: { offset: 2, digest } });
      expect(await snapshotBytes(store, "snapshots/s")).toBe("state@2");
      expect((await publish(store, "snapshots/s", 6, "state@tail")).kind).toBe("published");
      expect(await snapshotBytes(store, "snapshots/s")).toBe("state@tail");
    });

    t("§2.13 a publish off a boundary is a 400, beyond the tail a 409, and neither changes anything", async ({ engine }) => {
      const { store } = engine;
      await created(store, "snapshots/s");
      await appendAll(store, "snapshots/s", ...SOURCE);
      await publish(store, "snapshots/s", 2, "kept");
      const before = await fingerprint(store, "snapshots/s");
      expectError(await publish(store, "snapshots/s", 3, "x"), "INVALID_SNAPSHOT");
      expect(expectError(await publish(store, "snapshots/s", 7, "x"), "SNAPSHOT_CONFLICT").context.nextOffset).toBe(6);
      expect(await fingerprint(store, "snapshots/s")).toBe(before);
      expect(await snapshotBytes(store, "snapshots/s")).toBe("kept");
    });

    t("§2.13 an identical retry is idempotent, whatever Stream-Snapshot-Match says; other content at that offset is a 409", async ({ engine }) => {
      const { store } = engine;
      await created(store, "snapshots/s");
      await appendAll(store, "snapshots/s", ...SOURCE);
      await publish(store, "snapshots/s", 5, "same");
      const before = await fingerprint(store, "snapshots/s");
      expect((await publish(store, "snapshots/s", 5, "same")).kind).toBe("unchanged");
      expect((await publish(store, "snapshots/s", 5, "same", { match: "not-the-digest" })).kind).toBe("unchanged");
      expectError(await publish(store, "snapshots/s", 5, "different"), "SNAPSHOT_CONFLICT");
      expectError(await publish(store, "snapshots/s", 5, "same", { contentType: "text/plain" }), "SNAPSHOT_CONFLICT");
      expect(await fingerprint(store, "snapshots/s")).toBe(before);
    });

    t("§2.13 Stream-Snapshot-Match must name the visible snapshot, and there must be one", async ({ engine }) => {
      const { store } = engine;
      await created(store, "snapshots/s");
      await appendAll(store, "snapshots/s", ...SOURCE);
      expectError(await publish(store, "snapshots/s", 2, "first", { match: await digestOf("application/octet-stream", "first") }), "SNAPSHOT_CONFLICT");
      expect((await stateOf(store, "snapshots/s")).snapshot).toBeNull();
      const first = await publish(store, "snapshots/s", 2, "first");
      if (first.kind !== "published") throw new Error(first.kind);
      expectError(await publish(store, "snapshots/s", 5, "second", { match: "0".repeat(64) }), "SNAPSHOT_CONFLICT");
      expect((await publish(store, "snapshots/s", 5, "second", { match: first.snapshot.digest })).kind).toBe("published");
    });

    t("§7.3 only the latest snapshot is kept: a newer one replaces it, and an older offset is then a 409", async ({ engine }) => {
      const { store } = engine;
      await created(store, "snapshots/s");
      await appendAll(store, "snapshots/s", ...SOURCE);
      await publish(store, "snapshots/s", 2, "old");
      await publish(store, "snapshots/s", 5, "new");
      expectError(await publish(store, "snapshots/s", 2, "old"), "SNAPSHOT_CONFLICT");
      expect(await stateOf(store, "snapshots/s")).toMatchObject({ snapshot: { offset: 5 } });
      expect(await snapshotBytes(store, "snapshots/s")).toBe("new");
    });

    t("§2.16/§1.8 a stream's snapshot goes with it: a recreated stream has none, and a discarded upload changes nothing", async ({ engine }) => {
      const { store } = engine;
      await created(store, "snapshots/s");
      await appendAll(store, "snapshots/s", ...SOURCE);
      await publish(store, "snapshots/s", 2, "snap");
      const before = await fingerprint(store, "snapshots/s");
      const upload = await store.stageSnapshot();
      await upload.write(enc("never published"));
      await store.discardSnapshot(upload);
      expect(await fingerprint(store, "snapshots/s")).toBe(before);
      await store.delete("snapshots/s", null);
      expect((await created(store, "snapshots/s")).snapshot).toBeNull();
    });
  });

  describe("retention §2.17, §7.2", () => {
    t("§2.17 the floor needs a snapshot and never passes it; it rises only, an equal one is a no-op, and it lands on a boundary", async ({ engine }) => {
      const { store } = engine;
      await created(store, "retention/s");
      await appendAll(store, "retention/s", ...SOURCE);
      expectError(await retain(store, "retention/s", 2), "SNAPSHOT_CONFLICT");
      await publish(store, "retention/s", 5, "snap");
      const before = await fingerprint(store, "retention/s");
      expectError(await retain(store, "retention/s", 6), "SNAPSHOT_CONFLICT");
      expectError(await retain(store, "retention/s", 3), "INVALID_SNAPSHOT");
      expect(await fingerprint(store, "retention/s")).toBe(before);
      expect(await retain(store, "retention/s", 2)).toMatchObject({ kind: "advanced", state: { retained: 2 } });
      expect((await retain(store, "retention/s", 2)).kind).toBe("unchanged");
      expectError(await retain(store, "retention/s", 0), "SNAPSHOT_CONFLICT");
      expect((await retain(store, "retention/s", 5)).kind).toBe("advanced");
      expect((await stateOf(store, "retention/s")).retained).toBe(5);
    });

    t("§7.2 reads start at the floor and are refused below it; Stream-Seq and producers are untouched", async ({ engine }) => {
      const { store } = engine;
      await created(store, "retention/s");
      await store.append("retention/s", appendReq(["ab"], { producer: producer("p", 0, 0), streamSeq: "1" }));
      await appendAll(store, "retention/s", "cde", "f");
      await publish(store, "retention/s", 5, "snap");
      await retain(store, "retention/s", 2);
      const state = await stateOf(store, "retention/s");
      expect(state).toMatchObject({ retained: 2, lastSeq: "1", tail: 6 });
      expect(await messagesOf(store, "retention/s")).toEqual(["cde", "f"]);
      expect(planReadStart(state, { kind: "start" }, null)).toMatchObject({ kind: "error", code: "STREAM_GONE", context: { earliestOffset: 2 } });
      expect(planReadStart(state, { kind: "position", position: 2 }, null)).toBe(2);
      expect((await store.append("retention/s", appendReq(["g"], { producer: producer("p", 0, 1), streamSeq: "2" }))).kind).toBe("accepted");
      expect(await messagesOf(store, "retention/s")).toEqual(["cde", "f", "g"]);
      // The snapshot still covers the floor, as bootstrap needs.
      expect(await snapshotBytes(store, "retention/s")).toBe("snap");
    });

    t("§2.13 a publish below the floor is a 410", async ({ engine }) => {
      const { store } = engine;
      await created(store, "retention/s");
      await appendAll(store, "retention/s", ...SOURCE);
      await publish(store, "retention/s", 5, "snap");
      await retain(store, "retention/s", 5);
      expectError(await publish(store, "retention/s", 2, "older"), "STREAM_GONE");
      expect((await publish(store, "retention/s", 6, "newer")).kind).toBe("published");
    });
  });

  describe("append-batch §2.10", () => {
    t("§2.10 every frame is its own append, acknowledged in order with its next offset, never merged", async ({ engine }) => {
      const { store } = engine;
      await created(store, "batch/s", { streamSeq: "3" });
      await store.append("batch/s", appendReq(["x"], { producer: producer("p", 0, 0) }));
      const outcome = await store.appendBatch("batch/s", { contentType: "text/plain", frames: [[enc("ab")], [enc("cde")], [enc("f")]], incarnation: null });
      expect(outcome).toMatchObject({ kind: "batch", state: { tail: 7, messageCount: 4 } });
      if (outcome.kind !== "batch") return;
      expect(outcome.acks).toEqual([{ ok: true, nextOffset: 3 }, { ok: true, nextOffset: 6 }, { ok: true, nextOffset: 7 }]);
      expect(await messagesOf(store, "batch/s")).toEqual(["x", "ab", "cde", "f"]);
      // A batch carries no guards: the stored Stream-Seq and producer stay as they were.
      const state = await stateOf(store, "batch/s");
      expect(state.lastSeq).toBe("3");
      expect((await store.producers(state))[0]).toMatchObject(["p", { lastSeq: 0, lastNext: 1 }]);
    });

    t("§2.10 JSON frames are flattened each on its own", async ({ engine }) => {
      const { store } = engine;
      await created(store, "batch/j", { contentType: "application/json" });
      const frames = [jsonAppend("[1, 2]").messages, jsonAppend('{"a":3}').messages];
      const outcome = await store.appendBatch("batch/j", { contentType: "application/json", frames, incarnation: null });
      if (outcome.kind !== "batch") throw new Error(outcome.code);
      const first = frames[0]!.reduce((n, m) => n + m.length, 0);
      expect(outcome.acks).toEqual([{ ok: true, nextOffset: first }, { ok: true, nextOffset: first + frames[1]![0]!.length }]);
      expect(outcome.state.messageCount).toBe(3);
      expect(await valuesOf(store, "batch/j")).toEqual([1, 2, { a: 3 }]);
    });

    t("§2.10 a refused frame carries its error and the tail; the whole batch is refused only for a missing stream or another incarnation", async ({ engine }) => {
      const { store } = engine;
      await created(store, "batch/s", { body: enc("end"), close: true });
      const outcome = await store.appendBatch("batch/s", { contentType: "text/plain", frames: [[enc("x")], [enc("y")]], incarnation: null });
      if (outcome.kind !== "batch") throw new Error(outcome.code);
      expect(outcome.acks.map((a) => (a.ok ? "ok" : `${a.error.code}@${a.nextOffset}${a.closed ? " closed" : ""}`))).toEqual(["STREAM_CLOSED@3 closed", "STREAM_CLOSED@3 closed"]);
      expectError(await store.appendBatch("batch/none", { contentType: "text/plain", frames: [[enc("x")]], incarnation: null }), "STREAM_NOT_FOUND");
    });
  });
}
