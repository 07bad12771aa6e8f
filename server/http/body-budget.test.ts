// The budget through the app: a write whose body is still arriving holds its share, a write that
// would pass the budget is refused with 503 and Retry-After and commits nothing, and every way a
// request ends gives its share back.

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { harness, type Harness } from "../testing/app-harness";

const TEXT = { "Content-Type": "text/plain" };
let h: Harness;

beforeEach(async () => {
  h = harness({ maxBodyBytes: 100, maxInflightBodyBytes: 100 });
  expect((await h.request("PUT", "/budget-b/s", { headers: TEXT })).status).toBe(201);
});
afterEach(() => h.close());

/** A chunked upload that sends `first` now and the rest when `finish` is called. */
function slowUpload(first: number) {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      c.enqueue(new Uint8Array(first).fill(97));
    },
  });
  return {
    body,
    finish(rest: number) {
      controller.enqueue(new Uint8Array(rest).fill(98));
      controller.close();
    },
  };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

describe("bodies in memory, server-wide", () => {
  test("a write past the budget gets 503 with Retry-After and commits nothing; the held write then lands", async () => {
    const upload = slowUpload(60);
    const held = h.request("POST", "/budget-b/s", { headers: TEXT, body: upload.body });
    await tick();

    const before = await h.fingerprint("budget-b/s");
    const refused = await h.request("POST", "/budget-b/s", { headers: TEXT, body: "x".repeat(50) });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("Retry-After")).toBe("1");
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("INGRESS_BODY_BYTES_LIMIT");
    expect(await h.fingerprint("budget-b/s")).toBe(before!);
    // A PUT's body counts too.
    expect((await h.request("PUT", "/budget-b/other", { headers: TEXT, body: "y".repeat(50) })).status).toBe(503);
    expect(await h.fingerprint("budget-b/other")).toBeNull();
    // What fits beside the held upload still goes through.
    expect((await h.request("POST", "/budget-b/s", { headers: TEXT, body: "z".repeat(40) })).status).toBe(204);

    upload.finish(20);
    expect((await held).status).toBe(204);
    expect((await h.request("POST", "/budget-b/s", { headers: TEXT, body: "w".repeat(100) })).status).toBe(204);
    expect((await h.request("GET", "/budget-b/s?offset=-1")).headers.get("Stream-Next-Offset")).toBe("0000000000000000_0000000000000220");
  });

  test("refused, failed and accepted writes all give their share back", async () => {
    const full = "f".repeat(100);
    const json = JSON.stringify("j".repeat(98));
    for (let i = 0; i < 3; i++) {
      expect((await h.request("POST", "/budget-b/s", { headers: { "Content-Type": "application/json" }, body: json })).status).toBe(409);
      expect((await h.request("POST", "/budget-b/nope", { headers: TEXT, body: full })).status).toBe(404);
      expect((await h.request("POST", "/budget-b/s", { headers: { ...TEXT, "Producer-Id": "p" }, body: full })).status).toBe(400);
      expect((await h.request("PUT", "/budget-b/s", { headers: { "Content-Type": "application/json" }, body: json })).status).toBe(409);
      expect((await h.request("POST", "/budget-b/s", { headers: TEXT, body: full + "!" })).status).toBe(413);
      expect((await h.request("POST", "/budget-b/s", { headers: TEXT, body: full })).status).toBe(204);
    }
  });
});
