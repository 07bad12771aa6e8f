// Retention (spec §2.17, §3.4, §7.2): the floor rises on a boundary, never past the snapshot;
// reads below it, live ones included, answer 410 with the floor; the rows below it are deleted.

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { harness, type Harness } from "../testing/app-harness";

const J = { "Content-Type": "application/json" };
const at = (n: number) => `0000000000000000_${String(n).padStart(16, "0")}`;
const enc = new TextEncoder();
let h: Harness;
beforeEach(async () => {
  h = harness({ longPollTimeoutMs: 2000 });
  // Messages at 0, 8 and 16; tail 24. Producer p and Stream-Seq 001 on the last append.
  expect((await h.request("PUT", "/test-b/s", { headers: J, body: '[{"n":1},{"n":2}]' })).status).toBe(201);
  expect((await h.request("POST", "/test-b/s", { headers: { ...J, "Stream-Seq": "001", "Producer-Id": "p", "Producer-Epoch": "0", "Producer-Seq": "0" }, body: '{"n":3}' })).status).toBe(200);
  expect((await h.request("PUT", `/test-b/s/snapshot/${at(16)}`, { headers: J, body: '{"count":2}' })).status).toBe(204);
});
afterEach(() => h.close());

const retain = (offset: number, headers: Record<string, string> = {}) => h.request("PUT", `/test-b/s/retention/${at(offset)}`, { headers });

describe("advancing the floor (spec §2.17)", () => {
  test("204 with the new floor as a canonical token; the same floor again is a 204 no-op", async () => {
    const res = await retain(8);
    expect(res.status).toBe(204);
    expect(res.headers.get("Stream-Retained-Offset")).toBe(at(8));
    expect(res.headers.get("Stream-Incarnation")).toBe((await h.store.get("test-b/s"))!.incarnation);
    const before = await h.fingerprint("test-b/s");
    const again = await retain(8);
    expect(again.status).toBe(204);
    expect(again.headers.get("Stream-Retained-Offset")).toBe(at(8));
    expect(await h.fingerprint("test-b/s")).toBe(before);
    expect((await retain(16)).headers.get("Stream-Retained-Offset")).toBe(at(16));
  });

  test("HEAD reports the floor and the snapshot; the ETag moves with each", async () => {
    const head0 = await h.request("HEAD", "/test-b/s");
    expect(head0.headers.get("Stream-Retained-Offset")).toBe(at(0));
    expect(head0.headers.get("Stream-Snapshot-Offset")).toBe(at(16));
    expect(head0.headers.get("Stream-Snapshot-Digest")).toMatch(/^[0-9a-f]{64}$/);
    await retain(8);
    const head1 = await h.request("HEAD", "/test-b/s");
    expect(head1.headers.get("Stream-Retained-Offset")).toBe(at(8));
    expect(head1.headers.get("ETag")).not.toBe(head0.headers.get("ETag"));
    expect((await h.request("HEAD", "/test-b/s", { headers: { "If-None-Match": head0.headers.get("ETag")! } })).status).toBe(200);
    expect((await h.request("HEAD", "/test-b/s", { headers: { "If-None-Match": head1.headers.get("ETag")! } })).status).toBe(304);
  });

  test("producer state and Stream-Seq are untouched; reads from the floor on are as before", async () => {
    const fromFloor = await (await h.request("GET", `/test-b/s?offset=${at(8)}`)).text();
    await retain(8);
    const dup = await h.request("POST", "/test-b/s", { headers: { ...J, "Stream-Seq": "002", "Producer-Id": "p", "Producer-Epoch": "0", "Producer-Seq": "0" }, body: "9" });
    expect(dup.status).toBe(204);
    expect(dup.headers.get("Stream-Next-Offset")).toBe(at(24));
    const seq = await h.request("POST", "/test-b/s", { headers: { ...J, "Stream-Seq": "001" }, body: "9" });
    expect(seq.status).toBe(409);
    expect(seq.headers.get("Stream-Last-Seq")).toBe("001");
    expect(await (await h.request("GET", `/test-b/s?offset=${at(8)}`)).text()).toBe(fromFloor);
  });

  test("the rows below the floor are deleted", async () => {
    const state0 = (await h.store.get("test-b/s"))!;
    expect((await h.store.readRange(state0, 0, 100, true)).chunks.length).toBe(3);
    await retain(16);
    await h.store.reclaimed();
    const state = (await h.store.get("test-b/s"))!;
    // Nothing is found below the floor any more; from it on, everything is.
    expect((await h.store.readRange(state, 0, 100, true)).chunks).toEqual([]);
    expect((await h.store.readRange(state, 16, 100, true)).chunks.map((c) => new TextDecoder().decode(c))).toEqual(['{"n":3}\n']);
  });

  test("a fork inherits the floor and the snapshot that covers it", async () => {
    await retain(16);
    const fork = await h.request("PUT", "/test-b/f", { headers: { ...J, "Stream-Forked-From": "/test-b/s", "Stream-Fork-Offset": at(24) } });
    expect(fork.status).toBe(201);
    expect((await h.request("GET", "/test-b/f?offset=-1")).status).toBe(410);
    expect(await (await h.request("GET", `/test-b/f?offset=${at(16)}`)).json()).toEqual([{ n: 3 }]);
    const head = await h.request("HEAD", "/test-b/f");
    expect(head.headers.get("Stream-Retained-Offset")).toBe(at(16));
    expect(head.headers.get("Stream-Snapshot-Offset")).toBe(at(16));
    // The fork shares the blob: replacing the source's snapshot and deleting the source leave it.
    expect((await h.request("PUT", `/test-b/s/snapshot/${at(24)}`, { headers: J, body: "{}" })).status).toBe(204);
    expect((await h.request("DELETE", "/test-b/s")).status).toBe(204);
    await h.store.reclaimed();
    expect(await (await h.request("GET", `/test-b/f/snapshot/${at(16)}`)).text()).toBe('{"count":2}');
  });
});

describe("live readers that retention overtakes (spec §3.4)", () => {
  /** An append, a snapshot at its end and the floor moved there, decided in one transaction. */
  async function appendSnapshotAndRetain(): Promise<void> {
    const key = "test-b/s";
    const upload = h.store.stageSnapshot();
    await upload.write(enc.encode('{"count":4}'));
    await upload.end();
    const append = h.store.append(key, { contentType: "application/json", messages: [enc.encode('{"n":4}\n')], close: false, streamSeq: null, producer: null, incarnation: null });
    const publish = h.store.publishSnapshot(key, upload, { target: { kind: "offset", offset: 32 }, contentType: "application/json", match: null, incarnation: null }, "d".repeat(64), false);
    const retention = h.store.advanceRetention(key, { kind: "offset", offset: 32 }, null);
    expect((await append).kind).toBe("accepted");
    expect((await publish).kind).toBe("published");
    expect((await retention).kind).toBe("advanced");
  }

  /** Until a live reader is parked: otherwise it would be refused at its start, not overtaken. */
  async function parked(): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const info = (await (await h.request("GET", "/__ursula/api/info")).json()) as { live_readers: number };
      if (info.live_readers > 0) return;
      await Bun.sleep(5);
    }
    throw new Error("the live reader never parked");
  }

  test("a long-poll waiting at the tail answers 410 once the floor passes it", async () => {
    const poll = h.request("GET", `/test-b/s?offset=${at(24)}&live=long-poll`);
    await parked();
    await appendSnapshotAndRetain();
    const res = await poll;
    expect(res.status).toBe(410);
    expect(res.headers.get("Stream-Earliest-Offset")).toBe(at(32));
    expect(res.headers.get("Stream-Next-Offset")).toBe(at(32));
  });

  test("an SSE reader at the tail gets event: error and the response ends", async () => {
    const res = await h.request("GET", `/test-b/s?offset=${at(24)}&live=sse`);
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain("event: control");
    await parked();
    await appendSnapshotAndRetain();
    let rest = "";
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      rest += new TextDecoder().decode(next.value);
    }
    expect(rest).toMatch(/event: error\ndata:offset 0000000000000000_0000000000000024 is below the retained floor 0000000000000000_0000000000000032/);
    expect(rest).not.toContain("event: data");
  });
});
