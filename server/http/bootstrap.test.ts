// Bootstrap (spec §2.18): exact multipart/mixed framing, the headers, a partial answer past
// 8 MiB, and an answer that stays what it was while the stream changes under it.

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { harness, type Harness } from "../testing/app-harness";
import { freeBoundary } from "./bootstrap";

const J = { "Content-Type": "application/json" };
const B = { "Content-Type": "application/octet-stream" };
const at = (n: number) => `0000000000000000_${String(n).padStart(16, "0")}`;
let h: Harness;
beforeEach(() => {
  h = harness({ maxBodyBytes: 9 * 1024 * 1024 });
});
afterEach(() => h.close());

async function bootstrap(path: string) {
  const res = await h.request("GET", `${path}/bootstrap`);
  expect(res.status).toBe(200);
  const boundary = /^multipart\/mixed; boundary=(ursa-bootstrap-[0-9a-f]{32})$/.exec(res.headers.get("Content-Type")!)![1]!;
  const body = new Uint8Array(await res.arrayBuffer());
  return { res, boundary, body, text: Buffer.from(body).toString("latin1") };
}

describe("framing (spec §2.18)", () => {
  test("JSON: the snapshot part, then one part per message without its LF; nothing before or after", async () => {
    expect((await h.request("PUT", "/test-b/s", { headers: J, body: '[{"n":1},{"n":2},{"n":3}]' })).status).toBe(201);
    expect((await h.request("PUT", `/test-b/s/snapshot/${at(8)}`, { headers: { "Content-Type": "application/vnd.count+json" }, body: '{"count":1}' })).status).toBe(204);
    const { res, boundary, text } = await bootstrap("/test-b/s");
    const part = (type: string, payload: string) => `--${boundary}\r\nContent-Type: ${type}\r\n\r\n${payload}\r\n`;
    expect(text).toBe(part("application/vnd.count+json", '{"count":1}') + part("application/json", '{"n":2}') + part("application/json", '{"n":3}') + `--${boundary}--\r\n`);
    expect(res.headers.get("Stream-Snapshot-Offset")).toBe(at(8));
    expect(res.headers.get("Stream-Next-Offset")).toBe(at(24));
    expect(res.headers.get("Stream-Up-To-Date")).toBe("true");
    expect(res.headers.get("Stream-Closed")).toBeNull();
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(res.headers.get("Stream-Incarnation")).toBe((await h.store.get("test-b/s"))!.incarnation);
  });

  test("without a snapshot: an empty octet-stream part, Stream-Snapshot-Offset -1, and the messages from the floor", async () => {
    expect((await h.request("PUT", "/test-b/b", { headers: B, body: new Uint8Array([0, 13, 10, 45, 45]) })).status).toBe(201);
    expect((await h.request("POST", "/test-b/b", { headers: B, body: "two" })).status).toBe(204);
    const { res, boundary, text } = await bootstrap("/test-b/b");
    expect(res.headers.get("Stream-Snapshot-Offset")).toBe("-1");
    const part = (type: string, payload: string) => `--${boundary}\r\nContent-Type: ${type}\r\n\r\n${payload}\r\n`;
    // Binary payloads go as stored, byte for byte (CR, LF and dashes included).
    expect(text).toBe(part("application/octet-stream", "") + part("application/octet-stream", "\0\r\n--") + part("application/octet-stream", "two") + `--${boundary}--\r\n`);
  });

  test("a closed stream whose parts reach the tail says so", async () => {
    expect((await h.request("PUT", "/test-b/c", { headers: { ...J, "Stream-Closed": "true" }, body: "[1]" })).status).toBe(201);
    const { res } = await bootstrap("/test-b/c");
    expect(res.headers.get("Stream-Up-To-Date")).toBe("true");
    expect(res.headers.get("Stream-Closed")).toBe("true");
  });

  test("past 8 MiB of messages the answer stops at a message boundary without Stream-Up-To-Date", async () => {
    expect((await h.request("PUT", "/test-b/big", { headers: B })).status).toBe(201);
    const chunk = new Uint8Array(3 * 1024 * 1024).fill(65);
    for (let i = 0; i < 4; i++) expect((await h.request("POST", "/test-b/big", { headers: B, body: chunk })).status).toBe(204);
    const { res, boundary, text } = await bootstrap("/test-b/big");
    expect(res.headers.get("Stream-Up-To-Date")).toBeNull();
    // Two whole 3 MiB messages fit in 8 MiB; a third would pass it.
    expect(res.headers.get("Stream-Next-Offset")).toBe(at(6 * 1024 * 1024));
    expect(text.split(`--${boundary}\r\n`).length - 1).toBe(3);
    const next = await h.request("GET", `/test-b/big?offset=${res.headers.get("Stream-Next-Offset")}`);
    expect((await next.arrayBuffer()).byteLength).toBe(6 * 1024 * 1024);
  });

  test("one message larger than 8 MiB is still sent whole", async () => {
    expect((await h.request("PUT", "/test-b/huge", { headers: B, body: new Uint8Array(8 * 1024 * 1024 + 7) })).status).toBe(201);
    const { res, body } = await bootstrap("/test-b/huge");
    expect(res.headers.get("Stream-Next-Offset")).toBe(at(8 * 1024 * 1024 + 7));
    expect(res.headers.get("Stream-Up-To-Date")).toBe("true");
    expect(body.length).toBeGreaterThan(8 * 1024 * 1024 + 7);
  });

  test("the boundary is drawn again if it occurs in a message or in the snapshot", async () => {
    const draws = ["ursa-bootstrap-in-a-message", "ursa-bootstrap-in-the-snapshot", "ursa-bootstrap-free"];
    const snapshot = { chunks: 2, chunk: async (i: number) => new TextEncoder().encode(i === 0 ? "...ursa-bootstrap-in-the-" : "snapshot..."), mentionsBoundary: true, release() {} };
    const messages = [new TextEncoder().encode("x ursa-bootstrap-in-a-message x")];
    expect(await freeBoundary(messages, snapshot, () => draws.shift()!)).toBe("ursa-bootstrap-free");
  });

  test("bootstrap renews the TTL; HEAD answers its headers and renews nothing", async () => {
    expect((await h.request("PUT", "/test-b/t", { headers: { ...J, "Stream-TTL": "60" }, body: "[1]" })).status).toBe(201);
    h.clock.now += 50_000;
    const head = await h.request("HEAD", "/test-b/t/bootstrap");
    expect(head.status).toBe(200);
    expect(head.headers.get("Stream-Snapshot-Offset")).toBe("-1");
    expect(await head.text()).toBe("");
    h.clock.now += 11_000;
    expect((await h.request("GET", "/test-b/t/bootstrap")).status).toBe(404);
    expect((await h.request("PUT", "/test-b/u", { headers: { ...J, "Stream-TTL": "60" }, body: "[1]" })).status).toBe(201);
    h.clock.now += 50_000;
    await bootstrap("/test-b/u");
    h.clock.now += 50_000;
    expect((await h.request("HEAD", "/test-b/u")).status).toBe(200);
  });
});

describe("an answer in progress stays what it was (spec §2.18)", () => {
  test("a newer snapshot and retention while it streams change nothing of it, and the old bytes go afterwards", async () => {
    expect((await h.request("PUT", "/test-b/s", { headers: J, body: '[{"n":1},{"n":2},{"n":3}]' })).status).toBe(201);
    const old = new Uint8Array(3 * 1024 * 1024).fill(7);
    expect((await h.request("PUT", `/test-b/s/snapshot/${at(8)}`, { headers: B, body: old })).status).toBe(204);
    const oldMeta = (await h.store.get("test-b/s"))!.snapshot!;

    const res = await h.request("GET", "/test-b/s/bootstrap");
    const boundary = res.headers.get("Content-Type")!.split("boundary=")[1]!;
    const reader = res.body!.getReader();
    const got: Uint8Array[] = [(await reader.read()).value!];
    // Mid-answer: a newer snapshot at the tail, the floor moved to it, more appended.
    expect((await h.request("PUT", `/test-b/s/snapshot/${at(24)}`, { headers: J, body: '{"count":3}' })).status).toBe(204);
    expect((await h.request("PUT", `/test-b/s/retention/${at(24)}`)).status).toBe(204);
    expect((await h.request("POST", "/test-b/s", { headers: J, body: '{"n":4}' })).status).toBe(204);
    await h.store.reclaimed();
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      got.push(next.value);
    }
    const text = Buffer.concat(got).toString("latin1");
    const part = (type: string, payload: string) => `--${boundary}\r\nContent-Type: ${type}\r\n\r\n${payload}\r\n`;
    expect(text).toBe(part("application/octet-stream", "\x07".repeat(old.length)) + part("application/json", '{"n":2}') + part("application/json", '{"n":3}') + `--${boundary}--\r\n`);
    // The response has ended, so nothing holds the old snapshot's bytes any more.
    await Bun.sleep(10);
    await h.store.reclaimed();
    await expect((await h.store.openSnapshot(oldMeta)).chunk(0)).rejects.toThrow(/no chunk/);
    // And the next bootstrap starts from the new snapshot.
    const after = await bootstrap("/test-b/s");
    expect(after.res.headers.get("Stream-Snapshot-Offset")).toBe(at(24));
  });
});
