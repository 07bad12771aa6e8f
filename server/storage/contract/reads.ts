// Reads (spec §4.1–§4.2, §3.3) and what background reclaiming may take (spec §7.2–§7.4): a read
// serves the state it was given, whole messages in array mode, any byte range otherwise; and
// reclaiming rows below a floor, replaced attributes or snapshots never takes what a fork, the
// visible snapshot or an open reader still uses.

import { describe, expect } from "bun:test";
import type { EngineFactory } from "./engine";
import { appendAll, appendReq, bytesOf, contract, created, enc, messagesOf, publish, retain, snapshotBytes, stateOf } from "./helpers";

const dec = (chunks: Uint8Array[]) => chunks.map((c) => new TextDecoder().decode(c));

export function reads(factory: EngineFactory): void {
  const t = (title: string, run: Parameters<typeof contract>[2]) => contract(factory, title, run);

  describe("reads §4.1–§4.2", () => {
    t("§3.3/§4.1 a byte read from any offset with any limit returns exactly the bytes there, up to the limit", async ({ engine }) => {
      const { store } = engine;
      await created(store, "reads/s");
      await appendAll(store, "reads/s", "ab", "cde", "f", "ghij");
      const all = "abcdefghij";
      const state = await stateOf(store, "reads/s");
      for (let from = 0; from <= all.length; from++) {
        for (const limit of [1, 2, 3, 5, 100]) {
          const slice = await store.readRange(state, from, limit, false);
          expect(dec(slice.chunks).join("")).toBe(all.slice(from, from + limit));
          expect(slice.end).toBe(Math.min(all.length, from + limit));
        }
      }
    });

    t("§4.2 a read in whole messages never splits one, and carries at least one however small the limit", async ({ engine }) => {
      const { store } = engine;
      await created(store, "reads/s");
      await appendAll(store, "reads/s", "ab", "cde", "f", "ghij");
      const state = await stateOf(store, "reads/s");
      expect(dec((await store.readRange(state, 0, 1, true)).chunks)).toEqual(["ab"]);
      expect(await store.readRange(state, 2, 4, true)).toMatchObject({ end: 6 });
      expect(dec((await store.readRange(state, 2, 4, true)).chunks)).toEqual(["cde", "f"]);
      expect(dec((await store.readRange(state, 6, 1, true)).chunks)).toEqual(["ghij"]);
      expect(await store.readRange(state, 10, 5, true)).toEqual({ chunks: [], end: 10 });
    });

    t("§3.3 message boundaries: every append's start and the tail are boundaries, bytes inside a message are not", async ({ engine }) => {
      const { store } = engine;
      await created(store, "reads/s");
      await appendAll(store, "reads/s", "ab", "cde");
      const state = await stateOf(store, "reads/s");
      const starts = [];
      for (let offset = 0; offset <= 5; offset++) if (await store.isMessageStart(state, offset)) starts.push(offset);
      expect(starts).toEqual([0, 2, 5]);
    });

    t("§4.1 a read serves the state it was given: bytes appended after that state was read are not in it", async ({ engine }) => {
      const { store } = engine;
      await created(store, "reads/s");
      await appendAll(store, "reads/s", "old");
      const before = await stateOf(store, "reads/s");
      await appendAll(store, "reads/s", "new");
      expect(await store.readRange(before, 0, 100, false)).toMatchObject({ end: 3 });
      expect(dec((await store.readRange(before, 0, 100, true)).chunks)).toEqual(["old"]);
    });
  });

  describe("live readers §4.3–§4.4", () => {
    t("§4.3 listeners hear of each committed append, close, floor rise and delete once it is readable, and of no refused or failed write", async ({ engine }) => {
      const { store } = engine;
      await created(store, "reads/s", { streamSeq: "5" });
      await created(store, "reads/other");
      const heard: string[] = [];
      // What a listener is told of is what a read started then finds: [told, found] tails.
      const found: Promise<[number | null, number | null]>[] = [];
      store.onChange((changes) => {
        for (const c of changes) {
          if (c.kind === "gone" || c.kind === "touched") heard.push(`${c.kind} ${c.key}`);
          else heard.push(`${c.kind} ${c.state.name}@${c.state.tail}${c.kind === "appended" ? ` from ${c.start}: ${dec(c.messages).join(",")}` : ""}`);
          const told = c.kind === "gone" || c.kind === "touched" ? null : c.state.tail;
          found.push(store.get("reads/s").then((s) => [told, s?.tail ?? null]));
        }
      });
      // Each write waits for the reads its notices started, so that a read finds the state it was
      // told of and not a later write's (an engine's read may be a round trip).
      const settled = () => Promise.all(found);
      await store.append("reads/s", appendReq(["ab", "c"], { streamSeq: "6" }));
      await settled();
      await store.append("reads/s", appendReq(["x"], { streamSeq: "6" }));
      const fault = await engine.failWrites("reads/other");
      await store.append("reads/other", appendReq(["lost"])).catch(() => undefined);
      await fault.heal();
      await store.appendBatch("reads/s", { contentType: "text/plain", frames: [[enc("d")], [enc("ef")]], incarnation: null });
      await settled();
      await publish(store, "reads/s", 3, "snap");
      await retain(store, "reads/s", 2);
      await settled();
      await store.append("reads/s", appendReq([], { close: true }));
      await settled();
      await store.delete("reads/s", null);
      expect(heard).toEqual(["appended s@3 from 0: ab,c", "appended s@6 from 3: d,ef", "retained s@6", "closed s@6", "gone reads/s"]);
      const tails = await Promise.all(found);
      expect(tails).toEqual([[3, 3], [6, 6], [6, 6], [6, 6], [null, null]]);
    });
  });

  describe("reclaiming §7.2–§7.4", () => {
    t("§7.2/§7.4 once the source's rows below its floor are reclaimed, the source reads from its floor and a fork still has every inherited byte", async ({ engine }) => {
      const { store } = engine;
      await created(store, "reads/src");
      await appendAll(store, "reads/src", "ab", "cde", "f");
      await created(store, "reads/fork", { fork: { sourceKey: "reads/src", offset: 5, subOffset: null } });
      await publish(store, "reads/src", 5, "snap");
      await retain(store, "reads/src", 5);
      await engine.settle();
      expect(await messagesOf(store, "reads/src")).toEqual(["f"]);
      expect(await stateOf(store, "reads/src")).toMatchObject({ tail: 6, retained: 5 });
      expect(await messagesOf(store, "reads/fork")).toEqual(["ab", "cde"]);
      expect(await bytesOf(store, "reads/fork", 0, 2)).toBe("abcde");
    });

    t("§7.4 a fork keeps its inherited bytes and snapshot once its source is deleted, replaces its snapshot, and is reclaimed", async ({ engine }) => {
      const { store } = engine;
      await created(store, "reads/src", { body: enc("inherited") });
      await publish(store, "reads/src", 9, "shared snapshot");
      await created(store, "reads/fork", { fork: { sourceKey: "reads/src", offset: null, subOffset: null } });
      await created(store, "reads/other", { fork: { sourceKey: "reads/src", offset: null, subOffset: null } });
      await appendAll(store, "reads/src", "more");
      await publish(store, "reads/src", 13, "source's own");
      await store.delete("reads/src", null);
      await store.delete("reads/other", null);
      await engine.settle();
      expect(await messagesOf(store, "reads/fork")).toEqual(["inherited"]);
      expect(await snapshotBytes(store, "reads/fork")).toBe("shared snapshot");
    });

    t("§7.3 a replaced snapshot's reader keeps its bytes until it lets go, however long reclaiming has had", async ({ engine }) => {
      const { store } = engine;
      await created(store, "reads/s");
      await appendAll(store, "reads/s", "ab", "cde");
      await publish(store, "reads/s", 2, "old");
      const reader = await store.openSnapshot((await stateOf(store, "reads/s")).snapshot!);
      await publish(store, "reads/s", 5, "new");
      await engine.settle();
      const held: Uint8Array[] = [];
      for (let i = 0; i < reader.chunks; i++) held.push(await reader.chunk(i));
      await reader.release();
      expect(dec(held).join("")).toBe("old");
      expect(await snapshotBytes(store, "reads/s")).toBe("new");
    });

    t("§2.12 replaced attributes are reclaimed without touching the current ones", async ({ engine }) => {
      const { store } = engine;
      await created(store, "reads/s", { attrs: JSON.stringify({ title: "1" }) });
      for (const title of ["2", "3", "4"]) await store.putAttrs("reads/s", null, JSON.stringify({ title }));
      await engine.settle();
      expect(await store.attrs(await stateOf(store, "reads/s"))).toBe(JSON.stringify({ title: "4" }));
    });
  });
}
