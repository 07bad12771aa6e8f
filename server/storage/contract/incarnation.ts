// Stream-Incarnation [CW] (spec §1.8, §5.4): a token of another incarnation is a 412 carrying the
// current token, ahead of every 403 and 409, after 404 (and 410); a refused write applies nothing.

import { describe, expect } from "bun:test";
import type { Store } from "../store";
import type { EngineFactory } from "./engine";
import { appendReq, contract, created, createReq, expectError, fingerprint, messagesOf, producer, publish, retain, stateOf } from "./helpers";

const WRONG = "1";

/** A stream where every other check of an append would refuse something. */
async function guarded(store: Store, key: string) {
  await created(store, key, { streamSeq: "005" });
  await store.append(key, appendReq(["a"], { producer: producer("p", 2, 0) }));
  return stateOf(store, key);
}

export function incarnation(factory: EngineFactory): void {
  const t = (title: string, run: Parameters<typeof contract>[2]) => contract(factory, title, run);

  describe("Stream-Incarnation [CW] §5.4", () => {
    t("§5.4 another incarnation's token is a 412 before every 403 and 409 of an append, with the current token and tail, committing nothing", async ({ engine }) => {
      const { store } = engine;
      const state = await guarded(store, "incarnation/s");
      const refusals = [
        appendReq(["x"], { streamSeq: "001" }), // would be STREAM_SEQ_CONFLICT
        appendReq(["x"], { producer: producer("p", 1, 1) }), // PRODUCER_EPOCH_STALE
        appendReq(["x"], { producer: producer("p", 2, 0) }), // a duplicate
        appendReq(["x"], { producer: producer("p", 2, 5) }), // PRODUCER_SEQ_CONFLICT
        appendReq(["x"], { producer: producer("p", 3, 1) }), // INVALID_PRODUCER
        appendReq(["x"], { contentType: "application/json" }), // CONTENT_TYPE_MISMATCH
        appendReq(["x"], { streamSeq: "006" }), // would be accepted
      ];
      const before = await fingerprint(store, "incarnation/s");
      for (const request of refusals) {
        const refused = expectError(await store.append("incarnation/s", { ...request, incarnation: WRONG }), "STREAM_INCARNATION_MISMATCH");
        expect(refused.context).toMatchObject({ incarnation: state.incarnation, nextOffset: state.tail });
        expect(refused.context.lastSeq).toBeUndefined();
      }
      expect(await fingerprint(store, "incarnation/s")).toBe(before);
      // The matching token changes nothing about the checks.
      expect((await store.append("incarnation/s", appendReq(["y"], { streamSeq: "006", incarnation: state.incarnation }))).kind).toBe("accepted");
    });

    t("§5.4 a 412 also comes before a closed stream's 409 and its idempotent close", async ({ engine }) => {
      const { store } = engine;
      await created(store, "incarnation/s", { close: true });
      const before = await fingerprint(store, "incarnation/s");
      expectError(await store.append("incarnation/s", appendReq(["x"], { incarnation: WRONG })), "STREAM_INCARNATION_MISMATCH");
      expectError(await store.append("incarnation/s", appendReq([], { close: true, incarnation: WRONG })), "STREAM_INCARNATION_MISMATCH");
      expect(await fingerprint(store, "incarnation/s")).toBe(before);
    });

    t("§5.4 a missing stream is still a 404 with a token, and a soft-deleted one still a 410", async ({ engine }) => {
      const { store } = engine;
      expectError(await store.append("incarnation/none", appendReq(["x"], { incarnation: WRONG })), "STREAM_NOT_FOUND");
      expectError(await store.delete("incarnation/none", WRONG), "STREAM_NOT_FOUND");
      expectError(await store.putAttrs("incarnation/none", WRONG, null), "STREAM_NOT_FOUND");
      expectError(await retain(store, "incarnation/none", 0, WRONG), "STREAM_NOT_FOUND");
      expectError(await store.appendBatch("incarnation/none", { contentType: "text/plain", frames: [[new Uint8Array([1])]], incarnation: WRONG }), "STREAM_NOT_FOUND");
      await created(store, "incarnation/src");
      await store.append("incarnation/src", appendReq(["x"]));
      await created(store, "incarnation/fork", { fork: { sourceKey: "incarnation/src", offset: null, subOffset: null } });
      expect(await store.delete("incarnation/src", null)).toEqual({ kind: "deleted", soft: true });
      expectError(await store.append("incarnation/src", appendReq(["x"], { incarnation: WRONG })), "STREAM_SOFT_DELETED");
      expectError(await store.delete("incarnation/src", WRONG), "STREAM_SOFT_DELETED");
    });

    t("§5.4 every other write of a stream refuses another incarnation's token with a 412 and applies nothing", async ({ engine }) => {
      const { store } = engine;
      await created(store, "incarnation/s");
      await store.append("incarnation/s", appendReq(["abc", "def"]));
      expect((await publish(store, "incarnation/s", 3, "snap")).kind).toBe("published");
      const state = await stateOf(store, "incarnation/s");
      const before = await fingerprint(store, "incarnation/s");
      const refusals = [
        await store.delete("incarnation/s", WRONG),
        await store.putAttrs("incarnation/s", WRONG, JSON.stringify({ title: "t" })),
        await retain(store, "incarnation/s", 3, WRONG),
        await publish(store, "incarnation/s", 6, "newer", { incarnation: WRONG }),
        await store.appendBatch("incarnation/s", { contentType: "text/plain", frames: [[new Uint8Array([1])]], incarnation: WRONG }),
      ];
      for (const refused of refusals) expect(expectError(refused, "STREAM_INCARNATION_MISMATCH").context.incarnation).toBe(state.incarnation);
      expect(await fingerprint(store, "incarnation/s")).toBe(before);
    });

    t("§5.4 a PUT with a token for a missing stream is a 412 and creates nothing; on an existing stream a 412 comes before the configuration check", async ({ engine }) => {
      const { store } = engine;
      const missing = expectError(await store.create("incarnation/s", createReq("incarnation/s", { incarnation: WRONG })), "STREAM_INCARNATION_MISMATCH");
      expect(missing.context.incarnation).toBeUndefined();
      expect(await store.get("incarnation/s")).toBeUndefined();
      const state = await created(store, "incarnation/s");
      expectError(await store.create("incarnation/s", createReq("incarnation/s", { contentType: "application/json", incarnation: WRONG })), "STREAM_INCARNATION_MISMATCH");
      expect((await store.create("incarnation/s", createReq("incarnation/s", { incarnation: state.incarnation }))).kind).toBe("exists");
      expectError(await store.create("incarnation/s", createReq("incarnation/s", { contentType: "application/json", incarnation: state.incarnation })), "STREAM_ALREADY_EXISTS_CONFLICT");
    });

    t("§1.8 a recreated stream is a new incarnation with a greater token, and none of the old one's state carries over", async ({ engine }) => {
      const { store } = engine;
      const first = await created(store, "incarnation/s", { streamSeq: "9", attrs: JSON.stringify({ title: "old" }) });
      await store.append("incarnation/s", appendReq(["abc"], { producer: producer("p", 0, 0) }));
      await publish(store, "incarnation/s", 3, "snap");
      await retain(store, "incarnation/s", 3);
      expect(await store.delete("incarnation/s", first.incarnation)).toEqual({ kind: "deleted", soft: false });
      expect(await store.get("incarnation/s")).toBeUndefined();
      const second = await created(store, "incarnation/s");
      expect(BigInt(second.incarnation) > BigInt(first.incarnation)).toBe(true);
      expect(second).toMatchObject({ tail: 0, messageCount: 0, lastSeq: null, retained: 0, snapshot: null, closed: false });
      expect(await store.producers(second)).toEqual([]);
      expect(await store.attrs(second)).toBeNull();
      expect(await messagesOf(store, "incarnation/s")).toEqual([]);
      // The old token names no incarnation of the new stream.
      expectError(await store.append("incarnation/s", appendReq(["x"], { incarnation: first.incarnation })), "STREAM_INCARNATION_MISMATCH");
      // A producer starts again: its old seq is a gap.
      expectError(await store.append("incarnation/s", appendReq(["x"], { producer: producer("p", 0, 1) })), "PRODUCER_SEQ_CONFLICT");
    });

    t("§1.8 tokens strictly increase across streams, even when created in the same millisecond", async ({ engine }) => {
      const { store } = engine;
      const tokens: bigint[] = [];
      for (const name of ["a", "b", "c", "d"]) tokens.push(BigInt((await created(store, `incarnation/${name}`)).incarnation));
      const together = await Promise.all(["e", "f", "g"].map((name) => store.create(`incarnation/${name}`, createReq(`incarnation/${name}`))));
      for (const outcome of together) if (outcome.kind === "created") tokens.push(BigInt(outcome.state.incarnation));
      expect(tokens).toHaveLength(7);
      for (let i = 1; i < tokens.length; i++) expect(tokens[i]! > tokens[i - 1]!).toBe(true);
    });
  });
}
