// Batched appends (spec §2.10): one ack per frame in order, each frame its own append, one
// transaction for the whole batch.

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { harness, type Harness } from "../testing/app-harness";
import { frames } from "../testing/frames";

const J = { "Content-Type": "application/json" };
const B = { "Content-Type": "application/octet-stream" };
const at = (n: number) => `0000000000000000_${String(n).padStart(16, "0")}`;
let h: Harness;
beforeEach(async () => {
  h = harness({ longPollTimeoutMs: 2000 });
  expect((await h.request("PUT", "/test-b/j", { headers: J })).status).toBe(201);
  expect((await h.request("PUT", "/test-b/b", { headers: B })).status).toBe(201);
});
afterEach(() => h.close());

const batch = (path: string, payloads: (string | Uint8Array)[], headers: Record<string, string> = J) =>
  h.request("POST", `${path}/append-batch`, { headers, body: frames(payloads) });

describe("POST …/append-batch", () => {
  test("one ack per frame, in order; JSON frames are flattened one by one, never merged", async () => {
    const res = await batch("/test-b/j", ['{"a":1}', "[2,[3]]", ' "four" ']);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/json");
    expect(res.headers.get("Stream-Incarnation")).toBe((await h.store.get("test-b/j"))!.incarnation);
    expect(res.headers.get("Stream-Next-Offset")).toBe(at(21));
    // {"a":1}\n is 8 bytes; 2\n and [3]\n are 2 and 4; "four"\n is 7.
    expect(await res.json()).toEqual([
      { status: 204, stream_next_offset: at(8) },
      { status: 204, stream_next_offset: at(14) },
      { status: 204, stream_next_offset: at(21) },
    ]);
    expect(await (await h.request("GET", "/test-b/j?offset=-1")).json()).toEqual([{ a: 1 }, 2, [3], "four"]);
    // Each frame is its own append: its boundaries are where forks may start.
    expect((await h.request("PUT", "/test-b/f", { headers: { ...J, "Stream-Forked-From": "/test-b/j", "Stream-Fork-Offset": at(8), "Stream-Fork-Sub-Offset": "1" } })).status).toBe(201);
    expect(await (await h.request("GET", "/test-b/f?offset=-1")).json()).toEqual([{ a: 1 }, 2]);
  });

  test("binary frames are one message each, byte for byte", async () => {
    const res = await batch("/test-b/b", [new Uint8Array([0, 1, 2]), "\r\n", new Uint8Array([255])], B);
    expect(await res.json()).toEqual([
      { status: 204, stream_next_offset: at(3) },
      { status: 204, stream_next_offset: at(5) },
      { status: 204, stream_next_offset: at(6) },
    ]);
    const state = (await h.store.get("test-b/b"))!;
    expect((await h.store.readRange(state, 0, 100, true)).chunks.map((c) => [...c])).toEqual([[0, 1, 2], [13, 10], [255]]);
    expect(state.messageCount).toBe(3);
  });

  test("Prefer: return=minimal answers 204 when every frame succeeded", async () => {
    const res = await batch("/test-b/j", ["1", "2"], { ...J, Prefer: "respond-async, return=minimal" });
    expect(res.status).toBe(204);
    expect(res.headers.get("Stream-Next-Offset")).toBe(at(4));
    expect(res.headers.get("Stream-Incarnation")).not.toBeNull();
  });

  test("a failed frame is reported in its ack, with the code, the tail and the closure; minimal is then not 204", async () => {
    expect((await h.request("POST", "/test-b/j", { headers: { ...J, "Stream-Closed": "true" }, body: "0" })).status).toBe(204);
    const before = await h.fingerprint("test-b/j");
    const res = await batch("/test-b/j", ["1", "2"], { ...J, Prefer: "return=minimal" });
    expect(res.status).toBe(200);
    const acks = (await res.json()) as Record<string, unknown>[];
    expect(acks).toHaveLength(2);
    for (const ack of acks) {
      expect(ack).toMatchObject({ status: 409, error_code: "STREAM_CLOSED", stream_next_offset: at(2), stream_closed: true });
      expect(typeof ack.error).toBe("string");
    }
    expect(await h.fingerprint("test-b/j")).toBe(before);
  });

  test("a Content-Type that is not the stream's fails every frame with 409 and appends nothing", async () => {
    const before = await h.fingerprint("test-b/j");
    const res = await batch("/test-b/j", ["1"], { "Content-Type": "application/json; charset=utf-8" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([expect.objectContaining({ status: 409, error_code: "CONTENT_TYPE_MISMATCH", stream_next_offset: at(0) })]);
    expect(await h.fingerprint("test-b/j")).toBe(before);
  });

  test("a matching Stream-Incarnation is checked once and accepted", async () => {
    const token = (await h.store.get("test-b/j"))!.incarnation;
    expect((await batch("/test-b/j", ["1"], { ...J, "Stream-Incarnation": token })).status).toBe(200);
  });

  test("512 frames are allowed", async () => {
    const res = await batch("/test-b/j", Array.from({ length: 512 }, (_, i) => String(i)));
    expect(((await res.json()) as unknown[]).length).toBe(512);
    expect((await h.store.get("test-b/j"))!.messageCount).toBe(512);
  });

  test("the whole batch commits in one transaction: a reader waiting at the tail wakes once, to every frame", async () => {
    const poll = h.request("GET", `/test-b/j?offset=${at(0)}&live=long-poll`);
    await Bun.sleep(20);
    // A single append submitted in the same turn lands after the batch, in the same transaction.
    const [res, single] = await Promise.all([batch("/test-b/j", ["1", "2", "3"]), h.request("POST", "/test-b/j", { headers: J, body: "4" })]);
    expect(res.status).toBe(200);
    expect(single.status).toBe(204);
    expect(single.headers.get("Stream-Next-Offset")).toBe(at(8));
    const woke = await poll;
    expect(woke.status).toBe(200);
    expect(await woke.json()).toEqual([1, 2, 3, 4]);
  });
});
