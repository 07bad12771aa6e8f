// The write guards of Ursula v0.9.0, Conditional Writes (spec §5.1–§5.3): Stream-Seq compare-and-set,
// producer deduplication, epoch fencing, sequence gaps and the producer limit. Each refusal must
// commit nothing (the fingerprint is unchanged) and report what Conditional Writes says they report.

import { describe, expect } from "bun:test";
import type { EngineFactory } from "./engine";
import { appendReq, contract, created, createReq, expectError, fingerprint, HOUR, producer, stateOf, T0 } from "./helpers";

export function guards(factory: EngineFactory): void {
  const t = (title: string, run: Parameters<typeof contract>[2], options?: Parameters<typeof contract>[3]) => contract(factory, title, run, options);

  describe("Stream-Seq [CW] §5.2", () => {
    t("§5.2 a value strictly greater is accepted and stored; an equal or lower one is a 409 naming the stored value and the tail, committing nothing", async ({ engine }) => {
      const { store } = engine;
      await created(store, "guards/s");
      expect((await store.append("guards/s", appendReq(["a"], { streamSeq: "005" }))).kind).toBe("accepted");
      expect((await stateOf(store, "guards/s")).lastSeq).toBe("005");
      for (const seq of ["005", "004", "000", ""]) {
        const before = await fingerprint(store, "guards/s");
        const refused = expectError(await store.append("guards/s", appendReq(["b"], { streamSeq: seq })), "STREAM_SEQ_CONFLICT");
        expect(refused.context).toMatchObject({ lastSeq: "005", nextOffset: 1 });
        // Only the Stream-Seq check sets Stream-Last-Seq, and it carries no closure or producer facts [CW].
        expect(refused.context.closed).toBeUndefined();
        expect(refused.context.expectedSeq).toBeUndefined();
        expect(await fingerprint(store, "guards/s")).toBe(before);
      }
      expect((await store.append("guards/s", appendReq(["c"], { streamSeq: "006" }))).kind).toBe("accepted");
      expect((await stateOf(store, "guards/s")).lastSeq).toBe("006");
    });

    t("§5.2 the comparison is bytewise, not numeric: \"10\" is below \"9\" and \"B\" below \"a\"", async ({ engine }) => {
      const { store } = engine;
      await created(store, "guards/s");
      expect((await store.append("guards/s", appendReq(["x"], { streamSeq: "9" }))).kind).toBe("accepted");
      expectError(await store.append("guards/s", appendReq(["x"], { streamSeq: "10" })), "STREAM_SEQ_CONFLICT");
      expect((await store.append("guards/s", appendReq(["x"], { streamSeq: "9a" }))).kind).toBe("accepted");
      await created(store, "guards/t");
      expect((await store.append("guards/t", appendReq(["x"], { streamSeq: "a" }))).kind).toBe("accepted");
      expectError(await store.append("guards/t", appendReq(["x"], { streamSeq: "B" })), "STREAM_SEQ_CONFLICT");
    });

    t("§5.2 an append without Stream-Seq is not checked and leaves the stored value as it is", async ({ engine }) => {
      const { store } = engine;
      await created(store, "guards/s");
      expect((await store.append("guards/s", appendReq(["a"]))).kind).toBe("accepted");
      expect((await stateOf(store, "guards/s")).lastSeq).toBeNull();
      expect((await store.append("guards/s", appendReq(["b"], { streamSeq: "1" }))).kind).toBe("accepted");
      expect((await store.append("guards/s", appendReq(["c"]))).kind).toBe("accepted");
      expect((await stateOf(store, "guards/s")).lastSeq).toBe("1");
      expectError(await store.append("guards/s", appendReq(["d"], { streamSeq: "1" })), "STREAM_SEQ_CONFLICT");
    });

    t("§5.2 the scope is the stream: a value is checked only against earlier values on the same stream", async ({ engine }) => {
      const { store } = engine;
      await created(store, "guards/a");
      await created(store, "guards/b");
      expect((await store.append("guards/a", appendReq(["x"], { streamSeq: "5" }))).kind).toBe("accepted");
      expect((await store.append("guards/b", appendReq(["x"], { streamSeq: "1" }))).kind).toBe("accepted");
      expect([(await stateOf(store, "guards/a")).lastSeq, (await stateOf(store, "guards/b")).lastSeq]).toEqual(["5", "1"]);
    });

    t("§5.2 a creating PUT stores its Stream-Seq unchecked; a PUT that finds the stream ignores it", async ({ engine }) => {
      const { store } = engine;
      await created(store, "guards/s", { streamSeq: "007" });
      expect((await stateOf(store, "guards/s")).lastSeq).toBe("007");
      expectError(await store.append("guards/s", appendReq(["x"], { streamSeq: "007" })), "STREAM_SEQ_CONFLICT");
      const again = await store.create("guards/s", createReq("guards/s", { streamSeq: "999" }));
      expect(again.kind).toBe("exists");
      expect((await stateOf(store, "guards/s")).lastSeq).toBe("007");
    });

    t("§5.2 a close-only request with a Stream-Seq that is not greater is refused and does not close", async ({ engine }) => {
      const { store } = engine;
      await created(store, "guards/s", { streamSeq: "5" });
      const before = await fingerprint(store, "guards/s");
      expectError(await store.append("guards/s", appendReq([], { close: true, streamSeq: "5" })), "STREAM_SEQ_CONFLICT");
      expect(await fingerprint(store, "guards/s")).toBe(before);
      expect((await store.append("guards/s", appendReq([], { close: true, streamSeq: "6" }))).kind).toBe("accepted");
      expect(await stateOf(store, "guards/s")).toMatchObject({ closed: true, lastSeq: "6" });
    });
  });

  describe("racing writers [CW]", () => {
    t("§5.2 prefix-count: of writers racing with the same count in one transaction exactly one wins, and each loser learns the winner's value", async ({ engine }) => {
      const { store } = engine;
      await created(store, "guards/log");
      for (let round = 0; round < 3; round++) {
        const seq = String(round).padStart(20, "0");
        const outcomes = await Promise.all(Array.from({ length: 8 }, (_, w) => store.append("guards/log", appendReq([`w${w}r${round}`], { streamSeq: seq }))));
        expect(outcomes.filter((o) => o.kind === "accepted")).toHaveLength(1);
        for (const o of outcomes) if (o.kind === "error") expect(o).toMatchObject({ code: "STREAM_SEQ_CONFLICT", context: { lastSeq: seq } });
      }
      expect(await stateOf(store, "guards/log")).toMatchObject({ messageCount: 3, lastSeq: "00000000000000000002" });
    });

    t("§5.3 the same producer write sent twice at once is written once: one is accepted, the other is its duplicate", async ({ engine }) => {
      const { store } = engine;
      await created(store, "guards/s");
      const write = appendReq(["once"], { producer: producer("p", 0, 0) });
      const outcomes = await Promise.all([store.append("guards/s", write), store.append("guards/s", write)]);
      expect(outcomes.map((o) => o.kind)).toEqual(["accepted", "duplicate"]);
      expect(await stateOf(store, "guards/s")).toMatchObject({ tail: 4, messageCount: 1 });
    });
  });

  describe("producers §5.3", () => {
    t("§5.3 a retry of the newest write is a duplicate with its original next offset; an older one carries none; neither writes", async ({ engine }) => {
      const { store } = engine;
      await created(store, "guards/s");
      expect((await store.append("guards/s", appendReq(["aa"], { producer: producer("p", 0, 0) }))).kind).toBe("accepted");
      expect((await store.append("guards/s", appendReq(["bbb"], { producer: producer("p", 0, 1) }))).kind).toBe("accepted");
      await store.append("guards/s", appendReq(["c"]));
      const before = await fingerprint(store, "guards/s");
      const newest = await store.append("guards/s", appendReq(["different body"], { producer: producer("p", 0, 1) }));
      expect(newest).toMatchObject({ kind: "duplicate", epoch: 0, lastSeq: 1, nextOffset: 5, closed: false });
      const older = await store.append("guards/s", appendReq(["aa"], { producer: producer("p", 0, 0) }));
      expect(older).toMatchObject({ kind: "duplicate", epoch: 0, lastSeq: 1, nextOffset: null });
      expect(await fingerprint(store, "guards/s")).toBe(before);
    });

    t("§5.2/§5.3 deduplication runs before Stream-Seq: a retry whose Stream-Seq is no longer greater is a duplicate, not a 409", async ({ engine }) => {
      const { store } = engine;
      await created(store, "guards/s");
      const write = appendReq(["fact-1"], { producer: producer("p", 0, 0), streamSeq: "001" });
      expect((await store.append("guards/s", write)).kind).toBe("accepted");
      expect((await store.append("guards/s", write)).kind).toBe("duplicate");
      expect((await stateOf(store, "guards/s")).tail).toBe(6);
    });

    t("§5.2/§5.3 a Stream-Seq 409 uses up no Producer-Seq: the same Producer-Seq is accepted with a greater Stream-Seq", async ({ engine }) => {
      const { store } = engine;
      await created(store, "guards/s", { streamSeq: "005" });
      const before = await fingerprint(store, "guards/s");
      expectError(await store.append("guards/s", appendReq(["x"], { producer: producer("p", 0, 0), streamSeq: "004" })), "STREAM_SEQ_CONFLICT");
      expect(await fingerprint(store, "guards/s")).toBe(before);
      expect((await store.append("guards/s", appendReq(["x"], { producer: producer("p", 0, 0), streamSeq: "006" }))).kind).toBe("accepted");
    });

    t("§5.3 a gap, or an unknown producer starting above 0, is a 409 with the expected and received seq, committing nothing", async ({ engine }) => {
      const { store } = engine;
      await created(store, "guards/s");
      const before = await fingerprint(store, "guards/s");
      const unknown = expectError(await store.append("guards/s", appendReq(["x"], { producer: producer("p", 0, 3) })), "PRODUCER_SEQ_CONFLICT");
      expect(unknown.context).toMatchObject({ expectedSeq: 0, receivedSeq: 3 });
      expect(await fingerprint(store, "guards/s")).toBe(before);
      await store.append("guards/s", appendReq(["a"], { producer: producer("p", 0, 0) }));
      const mid = await fingerprint(store, "guards/s");
      const gap = expectError(await store.append("guards/s", appendReq(["x"], { producer: producer("p", 0, 2) })), "PRODUCER_SEQ_CONFLICT");
      expect(gap.context).toMatchObject({ expectedSeq: 1, receivedSeq: 2 });
      expect(gap.context.lastSeq).toBeUndefined();
      expect(await fingerprint(store, "guards/s")).toBe(mid);
      expect((await store.append("guards/s", appendReq(["b"], { producer: producer("p", 0, 1) }))).kind).toBe("accepted");
    });

    t("§5.3 epoch fencing: a new epoch starts at seq 0 and fences the old one once it commits; a refused new-epoch write fences nothing", async ({ engine }) => {
      const { store } = engine;
      await created(store, "guards/s", { streamSeq: "010" });
      await store.append("guards/s", appendReq(["a"], { producer: producer("p", 1, 0), streamSeq: "011" }));
      expectError(await store.append("guards/s", appendReq(["x"], { producer: producer("p", 2, 1) })), "INVALID_PRODUCER");
      // The new owner's first write loses the Stream-Seq race: the old owner is not fenced yet [CW].
      expectError(await store.append("guards/s", appendReq(["x"], { producer: producer("p", 2, 0), streamSeq: "011" })), "STREAM_SEQ_CONFLICT");
      expect((await store.append("guards/s", appendReq(["b"], { producer: producer("p", 1, 1), streamSeq: "012" }))).kind).toBe("accepted");
      expect((await store.append("guards/s", appendReq(["c"], { producer: producer("p", 2, 0), streamSeq: "013" }))).kind).toBe("accepted");
      const before = await fingerprint(store, "guards/s");
      const stale = expectError(await store.append("guards/s", appendReq(["x"], { producer: producer("p", 1, 2), streamSeq: "014" })), "PRODUCER_EPOCH_STALE");
      expect(stale.context.producerEpoch).toBe(2);
      expect(await fingerprint(store, "guards/s")).toBe(before);
      expect((await store.producers(await stateOf(store, "guards/s"))).find(([id]) => id === "p")?.[1]).toMatchObject({ epoch: 2, lastSeq: 0 });
    });

    t("§5.3 the producer limit: a new producer on a full stream is refused unless one has been idle an hour, which then makes way", async ({ engine, clock }) => {
      const { store } = engine;
      await created(store, "guards/s");
      await store.append("guards/s", appendReq(["a"], { producer: producer("a", 0, 0) }));
      clock.now += 60_000;
      await store.append("guards/s", appendReq(["b"], { producer: producer("b", 0, 0) }));
      clock.now = T0 + HOUR - 1;
      const before = await fingerprint(store, "guards/s");
      expectError(await store.append("guards/s", appendReq(["c"], { producer: producer("c", 0, 0) })), "PRODUCER_LIMIT");
      expect(await fingerprint(store, "guards/s")).toBe(before);
      // A known producer is never refused for the limit.
      expect((await store.append("guards/s", appendReq(["b"], { producer: producer("b", 0, 1) }))).kind).toBe("accepted");
      clock.now += 1;
      expect((await store.append("guards/s", appendReq(["c"], { producer: producer("c", 0, 0) }))).kind).toBe("accepted");
      const remembered = (await store.producers(await stateOf(store, "guards/s"))).map(([id]) => id).sort();
      expect(remembered).toEqual(["b", "c"]);
      // The evicted producer is unknown again: only seq 0 starts it.
      expectError(await store.append("guards/s", appendReq(["a"], { producer: producer("a", 0, 1) })), "PRODUCER_SEQ_CONFLICT");
    }, { producerLimits: { idleTtlMs: 7 * 24 * HOUR, maxPerStream: 2 } });

    t("§5.3 a producer idle past the idle limit is forgotten: it must start again at seq 0, in any epoch", async ({ engine, clock }) => {
      const { store } = engine;
      await created(store, "guards/s");
      for (let seq = 0; seq < 3; seq++) await store.append("guards/s", appendReq(["a"], { producer: producer("p", 4, seq) }));
      clock.now += 10 * 60_000;
      expect(await store.producers(await stateOf(store, "guards/s"))).toEqual([]);
      expectError(await store.append("guards/s", appendReq(["x"], { producer: producer("p", 4, 3) })), "PRODUCER_SEQ_CONFLICT");
      expect((await store.append("guards/s", appendReq(["b"], { producer: producer("p", 1, 0) }))).kind).toBe("accepted");
      expect((await store.producers(await stateOf(store, "guards/s")))[0]).toMatchObject(["p", { epoch: 1, lastSeq: 0 }]);
    }, { producerLimits: { idleTtlMs: 10 * 60_000, maxPerStream: 4096 } });
  });
}
