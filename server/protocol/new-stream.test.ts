import { describe, expect, test } from "bun:test";
import { createAppend, initialState, mintIncarnation } from "./new-stream";
import { createPlan } from "./testing-state";

const plan = createPlan;

describe("a new stream (spec §2.5, §7.4)", () => {
  test("starts empty and open, created and touched now, with the plan's type, lifetime and starting Stream-Seq", () => {
    const s = initialState(plan({ lifetime: { ttlSeconds: 60, expiresAtMs: null }, streamSeq: "007" }), "42", 1_000);
    expect(s).toMatchObject({ id: 0, bucket: "test", name: "s", incarnation: "42", contentType: "application/json", tail: 0, messageCount: 0, closed: false, lastSeq: "007", ttlSeconds: 60, touchedAtMs: 1_000, createdAtMs: 1_000, lastWriteAtMs: null, fork: null, retained: 0, snapshot: null, forkRefs: 0 });
    expect(s.producers.size).toBe(0);
  });

  test("a fork links to its source and starts from the source's floor, with the snapshot the plan kept", () => {
    const snapshot = { blobId: 3, offset: 4, contentType: "application/json", digest: "d", size: 9 };
    const s = initialState(plan({ fork: { sourceKey: "test/src", sourceId: 7, offset: 10, subOffset: 1, subBytes: 3, subMessages: 1, retained: 4, snapshot } }), "42", 1_000);
    expect(s).toMatchObject({ fork: { sourceKey: "test/src", sourceId: 7, offset: 10, subOffset: 1 }, retained: 4, snapshot });
    // Only the link: subBytes and the like are the engine's to apply.
    expect(Object.keys(s.fork!).sort()).toEqual(["offset", "sourceId", "sourceKey", "subOffset"]);
  });
});

describe("a PUT's body as the first append (spec §2.5)", () => {
  test("a PUT with no body, close or producer appends nothing", () => {
    expect(createAppend(plan(), 0)).toBeNull();
  });

  test("its messages, close and producer are one append at the new stream's tail, without a Stream-Seq guard", () => {
    const messages = [new Uint8Array([1, 2]), new Uint8Array([3])];
    const producer = { id: "p", epoch: 0, seq: 0 };
    expect(createAppend(plan({ messages, close: true, producer, streamSeq: "5" }), 12)).toEqual({ start: 12, messages, bytes: 3, close: true, streamSeq: null, producer, evicts: null, restartsForgotten: false });
    expect(createAppend(plan({ close: true }), 0)).toMatchObject({ messages: [], bytes: 0, close: true });
    expect(createAppend(plan({ producer }), 0)).toMatchObject({ messages: [], producer });
  });
});

describe("incarnation tokens (spec §1.8)", () => {
  test("strictly increase from the last one issued, and are its decimal text", () => {
    const first = mintIncarnation(0, 5_000);
    const second = mintIncarnation(first.counter, 5_000);
    expect(second.counter).toBeGreaterThan(first.counter);
    expect(mintIncarnation(second.counter, 1).counter).toBeGreaterThan(second.counter);
    expect(first.token).toBe(String(first.counter));
  });
});
