// Snapshots (spec §2.13–§2.16, §7.3): publish, idempotent retries, Stream-Snapshot-Match, the
// latest by redirect, reads by offset, and that only the latest one's bytes are kept.

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { blake3 } from "hash-wasm";
import { harness, type Harness } from "../testing/app-harness";

const J = { "Content-Type": "application/json" };
const at = (n: number) => `0000000000000000_${String(n).padStart(16, "0")}`;
let h: Harness;
beforeEach(async () => {
  h = harness();
  // Messages at 0, 8 and 16; tail 24.
  expect((await h.request("PUT", "/test-b/s", { headers: J, body: '[{"n":1},{"n":2},{"n":3}]' })).status).toBe(201);
});
afterEach(() => h.close());

const publish = (offset: number, body: string | Uint8Array, headers: Record<string, string> = J) =>
  h.request("PUT", `/test-b/s/snapshot/${at(offset)}`, { headers, body });

/** The digest of spec §2.13, composed here byte by byte: u64_le(len(type)) ‖ type ‖ body. */
async function expectedDigest(contentType: string, body: Uint8Array): Promise<string> {
  const type = new TextEncoder().encode(contentType);
  const input = new Uint8Array(8 + type.length + body.length);
  new DataView(input.buffer).setBigUint64(0, BigInt(type.length), true);
  input.set(type, 8);
  input.set(body, 8 + type.length);
  return blake3(input);
}

describe("publish (spec §2.13)", () => {
  test("204 with the offset, the BLAKE3 digest of type and bytes, the tail and the incarnation", async () => {
    const res = await publish(16, '{"count":2}');
    expect(res.status).toBe(204);
    const digest = await expectedDigest("application/json", new TextEncoder().encode('{"count":2}'));
    expect(res.headers.get("Stream-Snapshot-Offset")).toBe(at(16));
    expect(res.headers.get("Stream-Snapshot-Digest")).toBe(digest);
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(res.headers.get("Stream-Next-Offset")).toBe(at(24));
    expect(res.headers.get("Stream-Incarnation")).toBe((await h.store.get("test-b/s"))!.incarnation);
    // Publishing never moves the floor (spec §2.13 "Retention").
    expect((await h.store.get("test-b/s"))!.retained).toBe(0);
  });

  test("the type is normalized before it is hashed; no Content-Type means application/octet-stream", async () => {
    const a = await publish(8, "x", { "Content-Type": "Text/Plain; Charset=UTF-8" });
    expect(a.headers.get("Stream-Snapshot-Digest")).toBe(await expectedDigest("text/plain; charset=utf-8", new TextEncoder().encode("x")));
    const b = await h.request("PUT", `/test-b/s/snapshot/${at(16)}`, { body: new Uint8Array([1, 2, 3]) });
    expect(b.headers.get("Stream-Snapshot-Digest")).toBe(await expectedDigest("application/octet-stream", new Uint8Array([1, 2, 3])));
    const read = await h.request("GET", `/test-b/s/snapshot/${at(16)}`);
    expect(read.headers.get("Content-Type")).toBe("application/octet-stream");
  });

  test("an empty snapshot, one at offset 0, and one at the tail are all allowed", async () => {
    expect((await publish(0, "")).status).toBe(204);
    expect((await publish(24, "{}")).status).toBe(204);
    const read = await h.request("GET", `/test-b/s/snapshot/${at(24)}`);
    expect(await read.text()).toBe("{}");
  });

  test("an identical retry is 204, even with a Stream-Snapshot-Match that no longer holds (spec §9.2 #26)", async () => {
    const first = await publish(8, '{"count":1}');
    const d1 = first.headers.get("Stream-Snapshot-Digest")!;
    const conditional = await publish(16, '{"count":2}', { ...J, "Stream-Snapshot-Match": d1 });
    expect(conditional.status).toBe(204);
    const before = await h.fingerprint("test-b/s");
    // The same conditional publish, retried after its answer was lost: Match now names the old digest.
    const retry = await publish(16, '{"count":2}', { ...J, "Stream-Snapshot-Match": d1 });
    expect(retry.status).toBe(204);
    expect(retry.headers.get("Stream-Snapshot-Digest")).toBe(conditional.headers.get("Stream-Snapshot-Digest"));
    expect(await h.fingerprint("test-b/s")).toBe(before);
  });

  test("a newer snapshot replaces the old one, whose bytes are then deleted", async () => {
    await publish(8, "a".repeat(3 * 1024 * 1024));
    const old = (await h.store.get("test-b/s"))!.snapshot!;
    expect((await publish(16, '{"count":2}')).status).toBe(204);
    await h.store.reclaimed();
    await expect((await h.store.openSnapshot(old)).chunk(0)).rejects.toThrow(/no chunk/);
    expect((await h.request("GET", `/test-b/s/snapshot/${at(8)}`)).status).toBe(404);
  });

  test("a body of several chunks streams in and out byte for byte", async () => {
    const body = new Uint8Array(2.5 * 1024 * 1024);
    for (let i = 0; i < body.length; i++) body[i] = (i * 7 + (i >> 11)) & 0xff;
    const res = await publish(16, body, { "Content-Type": "application/octet-stream" });
    expect(res.headers.get("Stream-Snapshot-Digest")).toBe(await expectedDigest("application/octet-stream", body));
    expect((await h.store.get("test-b/s"))!.snapshot!.size).toBe(body.length);
    const read = await h.request("GET", `/test-b/s/snapshot/${at(16)}`);
    expect(new Uint8Array(await read.arrayBuffer())).toEqual(body);
  });

  test("a snapshot may be published at a boundary made earlier in the same transaction", async () => {
    const key = "test-b/s";
    const enc = new TextEncoder();
    const upload = h.store.stageSnapshot();
    await upload.write(enc.encode("{}"));
    await upload.end();
    const digest = await expectedDigest("application/json", enc.encode("{}"));
    const append = h.store.append(key, { contentType: "application/json", messages: [enc.encode('{"n":4}\n'), enc.encode('{"n":5}\n')], close: false, streamSeq: null, producer: null, incarnation: null });
    const req = { target: { kind: "offset" as const, offset: 32 }, contentType: "application/json", match: null, incarnation: null };
    const published = h.store.publishSnapshot(key, upload, req, digest, false);
    expect((await append).kind).toBe("accepted");
    expect((await published).kind).toBe("published");
  });
});

describe("latest, read and delete (spec §2.14–§2.16)", () => {
  test("GET …/snapshot answers 307 to the latest, with an absolute Location", async () => {
    const p = await publish(16, '{"count":2}');
    const res = await h.request("GET", "/test-b/s/snapshot");
    expect(res.status).toBe(307);
    expect(res.headers.get("Location")).toBe(`http://ursa.test/test-b/s/snapshot/${at(16)}`);
    expect(res.headers.get("Stream-Snapshot-Digest")).toBe(p.headers.get("Stream-Snapshot-Digest"));
    expect(res.headers.get("Stream-Incarnation")).not.toBeNull();
  });

  test("a read answers the bytes with their own type; replay continues at the snapshot's offset", async () => {
    await publish(16, "<state/>", { "Content-Type": "application/xml" });
    const res = await h.request("GET", `/test-b/s/snapshot/${at(16)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/xml");
    expect(res.headers.get("Stream-Next-Offset")).toBe(at(16));
    expect(res.headers.get("Stream-Up-To-Date")).toBeNull();
    expect(await res.text()).toBe("<state/>");
  });

  test("at the tail of a closed stream the read says up to date and closed", async () => {
    expect((await h.request("POST", "/test-b/s", { headers: { "Stream-Closed": "true" } })).status).toBe(204);
    await publish(24, "{}");
    const res = await h.request("GET", `/test-b/s/snapshot/${at(24)}`);
    expect(res.headers.get("Stream-Up-To-Date")).toBe("true");
    expect(res.headers.get("Stream-Closed")).toBe("true");
  });

  test("reads renew the TTL; HEAD and DELETE do not", async () => {
    expect((await h.request("PUT", "/test-b/t", { headers: { ...J, "Stream-TTL": "60" }, body: "[1]" })).status).toBe(201);
    expect((await h.request("PUT", `/test-b/t/snapshot/${at(2)}`, { headers: J, body: "{}" })).status).toBe(204);
    h.clock.now += 50_000;
    expect((await h.request("HEAD", `/test-b/t/snapshot/${at(2)}`)).status).toBe(200);
    expect((await h.request("DELETE", `/test-b/t/snapshot/${at(2)}`)).status).toBe(409);
    h.clock.now += 11_000;
    expect((await h.request("GET", `/test-b/t/snapshot/${at(2)}`)).status).toBe(404);
    expect((await h.request("PUT", "/test-b/u", { headers: { ...J, "Stream-TTL": "60" }, body: "[1]" })).status).toBe(201);
    expect((await h.request("PUT", `/test-b/u/snapshot/${at(2)}`, { headers: J, body: "{}" })).status).toBe(204);
    h.clock.now += 50_000;
    expect((await h.request("GET", `/test-b/u/snapshot/${at(2)}`)).status).toBe(200);
    h.clock.now += 50_000;
    expect((await h.request("GET", "/test-b/u/snapshot")).status).toBe(307);
  });

  test("a snapshot read in progress keeps its bytes while a newer one is published", async () => {
    const big = new Uint8Array(3 * 1024 * 1024).fill(9);
    await publish(8, big, { "Content-Type": "application/octet-stream" });
    const res = await h.request("GET", `/test-b/s/snapshot/${at(8)}`);
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect((await publish(16, "newer")).status).toBe(204);
    await h.store.reclaimed();
    let got = first.value!.length;
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      expect(next.value.every((b: number) => b === 9)).toBe(true);
      got += next.value.length;
    }
    expect(got).toBe(big.length);
  });
});
