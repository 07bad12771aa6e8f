// Creating streams and closing them (spec §1.7, §2.5, §5.5, §5.6): the initial state, idempotent
// and mismatching re-PUTs, Stream-Attrs, and closure that nothing undoes.

import { describe, expect } from "bun:test";
import type { CreateRequest } from "../../protocol/create";
import type { EngineFactory } from "./engine";
import { appendReq, contract, createReq, created, enc, expectError, fingerprint, messagesOf, producer, stateOf, valuesOf } from "./helpers";

export function streams(factory: EngineFactory): void {
  const t = (title: string, run: Parameters<typeof contract>[2]) => contract(factory, title, run);

  describe("creates §2.5", () => {
    t("§2.5 a create starts an open stream at offset 0 with the given type, or application/octet-stream", async ({ engine, clock }) => {
      const { store } = engine;
      const typed = await created(store, "create/typed", { contentType: "application/json" });
      expect(typed).toMatchObject({ bucket: "create", name: "typed", contentType: "application/json", tail: 0, messageCount: 0, closed: false, lastSeq: null, createdAtMs: clock.now, fork: null, softDeleted: false, retained: 0, snapshot: null });
      expect((await created(store, "create/plain", { contentType: null })).contentType).toBe("application/octet-stream");
      expect(await store.get("create/typed")).toMatchObject({ incarnation: typed.incarnation });
    });

    t("§2.5/§1.6 a create's body is its first content: bytes as one message, a JSON array flattened, [] nothing", async ({ engine }) => {
      const { store } = engine;
      expect((await created(store, "create/bytes", { body: enc("hello") })).tail).toBe(5);
      expect(await messagesOf(store, "create/bytes")).toEqual(["hello"]);
      const json = await created(store, "create/json", { contentType: "application/json", body: enc('[{"a":1}, 2]') });
      expect(json.messageCount).toBe(2);
      expect(await valuesOf(store, "create/json")).toEqual([{ a: 1 }, 2]);
      expect((await created(store, "create/empty", { contentType: "application/json", body: enc("[]") })).tail).toBe(0);
    });

    t("§2.5 a create with producer headers starts the producer at seq 0; a Producer-Seq other than 0 creates nothing", async ({ engine }) => {
      const { store } = engine;
      const refused = expectError(await store.create("create/s", createReq("create/s", { producer: producer("p", 2, 1), body: enc("x") })), "PRODUCER_SEQ_CONFLICT");
      expect(refused.context).toMatchObject({ expectedSeq: 0, receivedSeq: 1 });
      expect(await store.get("create/s")).toBeUndefined();
      await created(store, "create/s", { producer: producer("p", 2, 0), body: enc("x") });
      expect((await store.append("create/s", appendReq(["x"], { producer: producer("p", 2, 0) }))).kind).toBe("duplicate");
      expect((await store.append("create/s", appendReq(["y"], { producer: producer("p", 2, 1) }))).kind).toBe("accepted");
    });

    t("§2.5 a re-PUT whose configuration matches is idempotent: body, Stream-Seq and producer headers are ignored and nothing is appended", async ({ engine }) => {
      const { store } = engine;
      const config: Partial<CreateRequest> = { lifetime: { ttlSeconds: 60, expiresAtMs: null }, attrs: JSON.stringify({ title: "t" }) };
      const first = await created(store, "create/s", { ...config, body: enc("one") });
      const before = await fingerprint(store, "create/s");
      const again = await store.create("create/s", createReq("create/s", { ...config, body: enc("two"), streamSeq: "9", producer: producer("p", 0, 0) }));
      expect(again).toMatchObject({ kind: "exists", state: { incarnation: first.incarnation, tail: 3 } });
      expect(await fingerprint(store, "create/s")).toBe(before);
    });

    t("§2.5 a re-PUT that differs in type, closure, TTL, Expires-At or Stream-Attrs is a 409 and changes nothing", async ({ engine }) => {
      const { store } = engine;
      const config: Partial<CreateRequest> = { lifetime: { ttlSeconds: 60, expiresAtMs: null }, attrs: JSON.stringify({ title: "t" }) };
      await created(store, "create/s", config);
      const before = await fingerprint(store, "create/s");
      const differences: Partial<CreateRequest>[] = [
        { contentType: "application/json" },
        { contentType: null },
        { close: true },
        { lifetime: { ttlSeconds: 61, expiresAtMs: null } },
        { lifetime: { ttlSeconds: null, expiresAtMs: null } },
        { lifetime: { ttlSeconds: null, expiresAtMs: 2_000_000_000_000 } },
        { attrs: JSON.stringify({ title: "u" }) },
        { attrs: null },
      ];
      for (const difference of differences) {
        expectError(await store.create("create/s", createReq("create/s", { ...config, ...difference })), "STREAM_ALREADY_EXISTS_CONFLICT");
        expect(await fingerprint(store, "create/s")).toBe(before);
      }
    });

    t("§2.12 Stream-Attrs on a create are stored with the stream", async ({ engine }) => {
      const { store } = engine;
      const attrs = JSON.stringify({ metadata: { a: 1 }, title: "x" });
      const state = await created(store, "create/s", { attrs });
      expect(await store.attrs(state)).toBe(attrs);
      expect(await store.attrs(await created(store, "create/none"))).toBeNull();
    });

    t("§1.7 a deleted stream's path is free at once: a PUT creates a new incarnation", async ({ engine }) => {
      const { store } = engine;
      const first = await created(store, "create/s", { body: enc("old") });
      expect(await store.delete("create/s", null)).toEqual({ kind: "deleted", soft: false });
      expectError(await store.delete("create/s", null), "STREAM_NOT_FOUND");
      expectError(await store.append("create/s", appendReq(["x"])), "STREAM_NOT_FOUND");
      const second = await created(store, "create/s", { contentType: "application/json" });
      expect(second.incarnation).not.toBe(first.incarnation);
      expect(await messagesOf(store, "create/s")).toEqual([]);
    });
  });

  describe("closure §5.6", () => {
    t("§5.6 an append after close is a 409 with Stream-Closed and the final tail, committing nothing; closure is for good", async ({ engine }) => {
      const { store } = engine;
      await created(store, "create/s");
      await store.append("create/s", appendReq(["abc"], { close: true }));
      const before = await fingerprint(store, "create/s");
      for (const request of [appendReq(["x"]), appendReq(["x"], { close: true }), appendReq(["x"], { streamSeq: "1" })]) {
        const refused = expectError(await store.append("create/s", request), "STREAM_CLOSED");
        expect(refused.context).toMatchObject({ closed: true, nextOffset: 3 });
        expect(refused.context.lastSeq).toBeUndefined();
      }
      expect(await fingerprint(store, "create/s")).toBe(before);
    });

    t("§5.6 a close with a body appends it and closes in one write, recording the producer that closed", async ({ engine }) => {
      const { store } = engine;
      await created(store, "create/s");
      const d = await store.append("create/s", appendReq(["last"], { close: true, producer: producer("p", 1, 0), streamSeq: "4" }));
      expect(d.kind).toBe("accepted");
      expect(await stateOf(store, "create/s")).toMatchObject({ closed: true, tail: 4, lastSeq: "4", closedBy: { id: "p", epoch: 1, seq: 0 } });
      expect(await messagesOf(store, "create/s")).toEqual(["last"]);
      // A retry of the closing write is its duplicate, and says the stream is closed.
      expect(await store.append("create/s", appendReq(["last"], { close: true, producer: producer("p", 1, 0) }))).toMatchObject({ kind: "duplicate", closed: true, nextOffset: 4 });
    });

    t("§5.6 a close-only request on a closed stream is idempotent, producer tuple or not, and changes nothing", async ({ engine }) => {
      const { store } = engine;
      await created(store, "create/s");
      await store.append("create/s", appendReq(["abc"], { producer: producer("p", 0, 0) }));
      expect((await store.append("create/s", appendReq([], { close: true }))).kind).toBe("accepted");
      const before = await fingerprint(store, "create/s");
      expect(await store.append("create/s", appendReq([], { close: true }))).toMatchObject({ kind: "already_closed", tail: 3 });
      expect(await store.append("create/s", appendReq([], { close: true, producer: producer("q", 0, 0) }))).toMatchObject({ kind: "already_closed", tail: 3 });
      expect(await fingerprint(store, "create/s")).toBe(before);
    });

    t("§5.3/§5.6 a producer's close-only request is recorded: its retry is a duplicate that says the stream is closed, at the final tail", async ({ engine }) => {
      const { store } = engine;
      await created(store, "create/s");
      await store.append("create/s", appendReq(["abc"], { producer: producer("p", 0, 0) }));
      expect((await store.append("create/s", appendReq([], { close: true, producer: producer("p", 0, 1) }))).kind).toBe("accepted");
      expect(await stateOf(store, "create/s")).toMatchObject({ closed: true, closedBy: { id: "p", epoch: 0, seq: 1 } });
      expect(await store.append("create/s", appendReq([], { close: true, producer: producer("p", 0, 1) }))).toMatchObject({ kind: "duplicate", lastSeq: 1, nextOffset: 3, closed: true });
      expect(await store.append("create/s", appendReq(["abc"], { producer: producer("p", 0, 0) }))).toMatchObject({ kind: "duplicate", nextOffset: null, closed: true });
    });

    t("§5.5 a body of another type is a 409 without Stream-Last-Seq; a close-only request ignores its type", async ({ engine }) => {
      const { store } = engine;
      await created(store, "create/s", { contentType: "application/json", streamSeq: "1" });
      const before = await fingerprint(store, "create/s");
      const refused = expectError(await store.append("create/s", appendReq(["1"], { contentType: "application/json; charset=utf-8", streamSeq: "2" })), "CONTENT_TYPE_MISMATCH");
      expect(refused.context.lastSeq).toBeUndefined();
      expect(await fingerprint(store, "create/s")).toBe(before);
      expect((await store.append("create/s", appendReq([], { close: true, contentType: "text/plain" }))).kind).toBe("accepted");
    });

    t("§1.7/§5.6 a stream created closed holds its body as its final content; a re-PUT matches only with Stream-Closed", async ({ engine }) => {
      const { store } = engine;
      await created(store, "create/s", { body: enc("all"), close: true });
      expect(await stateOf(store, "create/s")).toMatchObject({ closed: true, tail: 3 });
      expectError(await store.append("create/s", appendReq(["more"])), "STREAM_CLOSED");
      expectError(await store.create("create/s", createReq("create/s")), "STREAM_ALREADY_EXISTS_CONFLICT");
      expect((await store.create("create/s", createReq("create/s", { close: true }))).kind).toBe("exists");
    });
  });
}
